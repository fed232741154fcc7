//! The lexicon of the generated corpus: every word the grammar knows, German and English side by
//! side, as static tables (the order of the tables is part of the corpus: the generator picks
//! entries by index, so the same seed gives the same corpus everywhere).
//!
//! Semantic classes keep the sentences sensible: a verb names the classes of noun its subject and
//! object may have, an adjective the nouns it describes, a preposition the nouns it takes.

pub(crate) mod nouns;
pub(crate) mod verbs;
pub(crate) mod words;

pub use nouns::NOUNS;
pub use verbs::{AUX_HABEN, AUX_SEIN, MODALS, VERBS};
pub use words::{ADJECTIVES, ADVERBS, PREPOSITIONS};

use candle_core::{Result, bail};

/// Noun classes, one bit each, combined into masks.
pub mod class {
    pub const PERSON: u16 = 1;
    pub const ANIMAL: u16 = 1 << 1;
    /// Things one can carry.
    pub const THING: u16 = 1 << 2;
    pub const FOOD: u16 = 1 << 3;
    pub const DRINK: u16 = 1 << 4;
    /// Things one reads or writes (book, letter, poem).
    pub const TEXT: u16 = 1 << 5;
    /// Places one is *in* (house, park, school).
    pub const PLACE: u16 = 1 << 6;
    /// Furniture: one is *on*, *under* or *next to* it.
    pub const FURNITURE: u16 = 1 << 7;
    /// Things outdoors that are not places (tree, bridge, fence).
    pub const OUTDOOR: u16 = 1 << 8;
    pub const VEHICLE: u16 = 1 << 9;
    /// Trees and bushes: one is *under* or *next to* them, not *on* them.
    pub const PLANT: u16 = 1 << 10;
    pub const ANIMATE: u16 = PERSON | ANIMAL;
}

/// Grammatical gender of a German noun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gender {
    Masc,
    Fem,
    Neut,
}

/// A noun: German singular and plural (nominative), the accusative/dative singular of weak
/// masculines (`Junge` -> `Jungen`; empty for every other noun), English singular and plural.
#[derive(Debug, PartialEq, Eq)]
pub struct Noun {
    pub de: &'static str,
    pub de_plural: &'static str,
    /// The oblique singular of a weak masculine (`den Jungen`, `dem Jungen`); "" when regular.
    pub de_weak: &'static str,
    pub gender: Gender,
    pub en: &'static str,
    pub en_plural: &'static str,
    /// A bit of [`class`].
    pub class: u16,
}

/// The perfect auxiliary a verb takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aux {
    Haben,
    Sein,
}

/// What follows a verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Complement {
    /// Intransitive.
    None,
    /// An accusative object of one of these classes.
    Object(u16),
    /// A clause: with `dass` (`that`) when `dass` is true, with `ob` (`whether`) when `ob` is.
    Clause { dass: bool, ob: bool },
}

/// PP kinds, as bits of [`Verb::pps`].
pub mod pp {
    /// Where (`in`, `auf`, `unter`, `neben`, `hinter`, `vor`).
    pub const PLACE: u8 = 1;
    /// With whom or what (`mit`).
    pub const WITH: u8 = 1 << 1;
    /// Where to or from (`zu`, `von`, `aus`): verbs of motion.
    pub const MOTION: u8 = 1 << 2;
}

/// A full verb. The present forms of `ich`, `wir`, `ihr` and `sie` (plural) follow from the
/// infinitive; `du` and `er` forms are given where the stem changes (`siehst`, `sieht`) and
/// derived otherwise (`kaufst`, `kauft`; `arbeitest`, `arbeitet`; `tanzt`).
#[derive(Debug, PartialEq, Eq)]
pub struct Verb {
    /// The infinitive without a separable prefix (`stehen` for `aufstehen`).
    pub inf: &'static str,
    /// A separable prefix (`auf`), or "".
    pub prefix: &'static str,
    /// `ich` form when irregular (`weiß`), else "".
    pub ich: &'static str,
    /// `du` and `er` forms when irregular, else "".
    pub du: &'static str,
    pub er: &'static str,
    /// The past participle, prefix included (`aufgestanden`).
    pub participle: &'static str,
    pub aux: Aux,
    /// English base form, third person singular, past participle (`see`, `sees`, `seen`).
    pub en: [&'static str; 3],
    /// Classes its subject may have.
    pub subject: u16,
    pub complement: Complement,
    /// PP kinds it takes (bits of [`pp`]).
    pub pps: u8,
}

impl Verb {
    /// A verb with regular `du`/`er` forms and no separable prefix.
    pub const fn new(
        inf: &'static str,
        participle: &'static str,
        aux: Aux,
        en: [&'static str; 3],
        subject: u16,
        complement: Complement,
        pps: u8,
    ) -> Verb {
        Verb { inf, prefix: "", ich: "", du: "", er: "", participle, aux, en, subject, complement, pps }
    }

    /// With irregular `du` and `er` forms.
    pub const fn irr(mut self, du: &'static str, er: &'static str) -> Verb {
        self.du = du;
        self.er = er;
        self
    }

    /// With an irregular `ich` form.
    pub const fn ich(mut self, ich: &'static str) -> Verb {
        self.ich = ich;
        self
    }

    /// With a separable prefix.
    pub const fn sep(mut self, prefix: &'static str) -> Verb {
        self.prefix = prefix;
        self
    }

    fn stem(&self) -> &'static str {
        self.inf.strip_suffix("en").or_else(|| self.inf.strip_suffix('n')).unwrap_or(self.inf)
    }

    /// The present form for a person slot (0 `ich`, 1 `du`, 2 `er`, 3 `wir`, 4 `ihr`, 5 `sie`),
    /// without the separable prefix.
    pub fn present(&self, slot: usize) -> String {
        let (stem, ending) = self.present_parts(slot);
        format!("{stem}{ending}")
    }

    /// [`present`](Self::present) as stem and ending, without allocating.
    pub fn present_parts(&self, slot: usize) -> (&'static str, &'static str) {
        let stem = self.stem();
        let e = needs_e(stem);
        match slot {
            0 if !self.ich.is_empty() => (self.ich, ""),
            0 => (stem, "e"),
            1 if !self.du.is_empty() => (self.du, ""),
            1 if stem.ends_with(['s', 'ß', 'z', 'x']) => (stem, "t"),
            1 => (stem, if e { "est" } else { "st" }),
            2 if !self.er.is_empty() => (self.er, ""),
            2 | 4 => (stem, if e { "et" } else { "t" }),
            _ => (self.inf, ""),
        }
    }

    /// The full infinitive, prefix included (`aufstehen`).
    pub fn infinitive(&self) -> String {
        format!("{}{}", self.prefix, self.inf)
    }

    /// Its German name: the full infinitive.
    pub fn lemma(&self) -> String {
        self.infinitive()
    }
}

/// Stems ending in `t`, `d`, or a consonant before `n`/`m` (`öffn`, `atm`) take an `e` before
/// `-st` and `-t`.
fn needs_e(stem: &str) -> bool {
    let c: Vec<char> = stem.chars().rev().take(2).collect();
    match c.as_slice() {
        ['t' | 'd', ..] => true,
        ['n' | 'm', b, ..] => !"aeiouäöülrhmn".contains(*b),
        _ => false,
    }
}

/// How English says a modal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnModal {
    /// A modal auxiliary (`can`), with its negated form (`cannot`).
    Aux { word: &'static str, negated: &'static str },
    /// A full verb with `to` (`want to`, `wants to`), negated and questioned with `do`.
    Verb { base: &'static str, third: &'static str },
}

/// A modal verb (and `werden` for the future): its six present forms and its English.
#[derive(Debug, PartialEq, Eq)]
pub struct Modal {
    pub inf: &'static str,
    pub forms: [&'static str; 6],
    pub en: EnModal,
}

/// A perfect auxiliary: German present forms, English `has`/`have`.
#[derive(Debug, PartialEq, Eq)]
pub struct Auxiliary {
    pub forms: [&'static str; 6],
}

/// An adjective: its German stem for the inflected forms (`klein`, `teur`) and its English.
#[derive(Debug, PartialEq, Eq)]
pub struct Adjective {
    pub de: &'static str,
    pub stem: &'static str,
    pub en: &'static str,
    /// Classes of noun it describes.
    pub nouns: u16,
}

/// A time adverb or phrase (`heute`, `am Montag`).
#[derive(Debug, PartialEq, Eq)]
pub struct Adverb {
    pub de: &'static str,
    pub en: &'static str,
    /// Whether English allows it with the present perfect (`today` yes, `on Monday` no).
    pub with_perfect: bool,
}

/// A preposition with the dative, with its contractions with `dem` (`im`) and `der` (`zur`).
#[derive(Debug, PartialEq, Eq)]
pub struct Preposition {
    pub de: &'static str,
    pub en: &'static str,
    /// A bit of [`pp`].
    pub kind: u8,
    /// Classes of noun it takes.
    pub nouns: u16,
    /// `in` + `dem` -> `im`; "" when it does not contract.
    pub with_dem: &'static str,
    /// `zu` + `der` -> `zur`; "".
    pub with_der: &'static str,
}

fn find<T>(what: &str, table: &'static [T], name: &str, key: impl Fn(&T) -> String) -> Result<&'static T> {
    match table.iter().find(|t| key(t) == name) {
        Some(t) => Ok(t),
        None => bail!("corpus lexicon: no {what} `{name}` in the lexicon"),
    }
}

/// The noun with this German singular (`Hund`).
pub fn noun(name: &str) -> Result<&'static Noun> {
    find("noun", NOUNS, name, |n| n.de.to_string())
}

/// The verb with this infinitive, prefix included (`sehen`, `aufstehen`).
pub fn verb(name: &str) -> Result<&'static Verb> {
    find("verb", VERBS, name, Verb::lemma)
}

/// The modal with this infinitive (`wollen`, `können`, `werden`).
pub fn modal(name: &str) -> Result<&'static Modal> {
    find("modal verb", MODALS, name, |m| m.inf.to_string())
}

/// The adjective with this base form (`klein`).
pub fn adjective(name: &str) -> Result<&'static Adjective> {
    find("adjective", ADJECTIVES, name, |a| a.de.to_string())
}

/// The time adverb with this German form (`heute`, `am Montag`).
pub fn adverb(name: &str) -> Result<&'static Adverb> {
    find("adverb", ADVERBS, name, |a| a.de.to_string())
}

/// The preposition with this German form (`mit`).
pub fn preposition(name: &str) -> Result<&'static Preposition> {
    find("preposition", PREPOSITIONS, name, |p| p.de.to_string())
}
