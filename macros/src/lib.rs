//! The macros of attention-zoo, re-exported by the main crate (`use attention_zoo::prelude::*`).
//!
//! - `#[derive(Walk)]` writes a module's parameter walk from its fields.
//! - `#[errors_as]` labels every error of a public function with the item's name, once.

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, ItemFn, LitStr, parse_macro_input};

/// Derives `Walk` for a struct: each field is a child under its own name, in declaration order
/// (PyTorch's registration order when the fields are declared as the lecture assigns them).
///
/// - `#[walk(rename = "MHA")]` gives a field PyTorch's name;
/// - `#[walk(skip)]` leaves out a field that is not a module (sizes, flags, cached tensors);
/// - `#[walk(mode)]` marks the module's own training flag (a `TrainingMode`), which `train()` and
///   `eval()` reach.
///
/// An `Option` field is walked when it is `Some`, a `Vec` field as PyTorch's `ModuleList`
/// (`layers.0`, `layers.1`, ...). Every type parameter of the struct must be `Walk`.
#[proc_macro_derive(Walk, attributes(walk))]
pub fn derive_walk(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match walk_impl(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn walk_impl(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(input.span(), "#[derive(Walk)] is for structs: write `impl Walk` by hand for an enum"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(input.span(), "#[derive(Walk)] needs named fields: each is a child under its name"));
    };
    let mut children = vec![];
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("a named field");
        let mut name = ident.to_string();
        let (mut skip, mut mode, mut renamed) = (false, false, false);
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("walk")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") {
                    skip = true;
                    Ok(())
                } else if meta.path.is_ident("mode") {
                    mode = true;
                    Ok(())
                } else if meta.path.is_ident("rename") {
                    name = meta.value()?.parse::<LitStr>()?.value();
                    renamed = true;
                    Ok(())
                } else {
                    Err(meta.error("expected `skip`, `mode` or `rename = \"...\"`"))
                }
            })?;
        }
        if [skip, mode, renamed].iter().filter(|&&b| b).count() > 1 {
            return Err(syn::Error::new(field.span(), "#[walk(..)]: one of `skip`, `mode` and `rename` per field"));
        }
        if mode {
            children.push(quote_spanned! {field.span()=> w.mode(&self.#ident); });
        } else if !skip {
            children.push(quote_spanned! {field.span()=> w.child(#name, &self.#ident); });
        }
    }
    let ty = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(::attention_zoo::nn::Walk));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::attention_zoo::nn::Walk for #ty #ty_generics #where_clause {
            fn walk(&self, w: &mut ::attention_zoo::nn::Walker) {
                #(#children)*
            }
        }
    })
}

/// Labels every error of a function that returns `Result` with the public item's name, once:
/// `#[errors_as]` on `EncoderLayer::forward` makes an input check's error read
/// `EncoderLayer: expected ...`, and puts `EncoderLayer:` above an error from beneath (an inner
/// layer's, or candle's). Without an argument the name is the function's own, read from the
/// path of an item nested in it (`nn::label_of`): `Type` for `new` and `forward`, `Type::method`
/// for another method, a free function's name. `#[errors_as("EncoderPe")]` names it otherwise
/// (a type alias, a pass that reports as the public method calling it). The body is the
/// function's own lines, run as written.
#[proc_macro_attribute]
pub fn errors_as(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut function = parse_macro_input!(item as ItemFn);
    let body = &function.block;
    let labelled = if attr.is_empty() {
        quote! {
            {
                fn errors_as_here() {}
                ::attention_zoo::nn::in_function(::std::any::type_name_of_val(&errors_as_here), (|| #body)())
            }
        }
    } else {
        let name = parse_macro_input!(attr as LitStr);
        quote! {
            {
                ::attention_zoo::nn::in_module(#name, (|| #body)())
            }
        }
    };
    *function.block = syn::parse2(labelled).expect("a block");
    quote!(#function).into()
}
