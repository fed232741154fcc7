// Analysed by the kernel's rust-analyzer in the background after the start-up, never compiled or
// run (tools/evcxr/README.md, "Restarts in seconds"): rust-analyzer loads the crate's dependency
// graph and resolves its names for the typed variable, and answers a trait's first use slowly (up
// to 0.7 s for the first iterator chain, 0.3 s for the first `D::Minus1`): the usual ones once
// here, where nobody waits for them. A cell that defines a variable before this is done waits.
let zoo_warm_up = Tensor::new(&[[[0f32, 1.0]]], &Device::Cpu)?;
{
    let first: Option<Tensor> = Some(zoo_warm_up.clone());
    let t = first.clone().unwrap().permute((1, 0, 2))?.i((.., ..1))?;
    let n = t.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.broadcast_div(&t)?.dim(D::Minus1)?;
    let names: Vec<String> = (0..n).map(|k| format!("{k:02}")).chain(std::iter::once(String::new())).collect();
    let _ = (show(&t).text(), names.iter().enumerate().count(), i64::from(n as u8 <= 2));
}
