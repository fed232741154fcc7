//! Noun phrases and pronouns, and how each language inflects them: German articles and adjective
//! endings by gender, number and case; English `a`/`an` and plurals.

use super::lexicon::{self, Adjective, Gender, Noun};
use candle_core::Result;

/// German case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Nom,
    Acc,
    Dat,
}

/// A possessive determiner: `mein` (my), `dein` (your), `sein` (his), `unser` (our), `euer`
/// (your, plural). (`ihr` is left out: it would be `her` or `their`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Possessive {
    Mein,
    Dein,
    Sein,
    Unser,
    Euer,
}

impl Possessive {
    pub const ALL: [Possessive; 5] = [Possessive::Mein, Possessive::Dein, Possessive::Sein, Possessive::Unser, Possessive::Euer];

    fn de(self) -> (&'static str, &'static str) {
        // The bare form, and the stem the endings go on (`euer` -> `eure`).
        match self {
            Possessive::Mein => ("mein", "mein"),
            Possessive::Dein => ("dein", "dein"),
            Possessive::Sein => ("sein", "sein"),
            Possessive::Unser => ("unser", "unser"),
            Possessive::Euer => ("euer", "eur"),
        }
    }

    fn en(self) -> &'static str {
        match self {
            Possessive::Mein => "my",
            Possessive::Dein | Possessive::Euer => "your",
            Possessive::Sein => "his",
            Possessive::Unser => "our",
        }
    }
}

/// A determiner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Det {
    /// `der`/`die`/`das` -> `the`.
    Def,
    /// `ein`/`eine` -> `a`/`an`; in the plural no article at all (`Hunde` -> `dogs`).
    Indef,
    /// `kein`/`keine` -> `no`.
    No,
    Poss(Possessive),
}

/// A noun with its determiner, an optional adjective, and its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NounPhrase {
    pub det: Det,
    pub adjective: Option<&'static Adjective>,
    pub noun: &'static Noun,
    pub plural: bool,
}

impl NounPhrase {
    /// The singular noun `noun` (German singular, `Hund`) with `det`; an error names an unknown noun.
    pub fn new(det: Det, noun: &str) -> Result<Self> {
        Ok(NounPhrase { det, adjective: None, noun: lexicon::noun(noun)?, plural: false })
    }

    /// `der Hund` -> `the dog`.
    pub fn the(noun: &str) -> Result<Self> {
        Self::new(Det::Def, noun)
    }

    /// `ein Hund` -> `a dog`.
    pub fn a(noun: &str) -> Result<Self> {
        Self::new(Det::Indef, noun)
    }

    /// `kein Hund` -> `no dog`.
    pub fn no(noun: &str) -> Result<Self> {
        Self::new(Det::No, noun)
    }

    /// With the adjective `name` (base form, `klein`).
    pub fn adjective(mut self, name: &str) -> Result<Self> {
        self.adjective = Some(lexicon::adjective(name)?);
        Ok(self)
    }

    /// In the plural.
    pub fn plural(mut self) -> Self {
        self.plural = true;
        self
    }

    /// The German words in `case` (`den kleinen Hund`).
    pub fn german(&self, case: Case) -> String {
        let mut w = Words::default();
        self.write_german(case, true, &mut w);
        w.into_string()
    }

    /// Writes the German words, the article left out when `article` is false (after `im`).
    pub(crate) fn write_german(&self, case: Case, article: bool, out: &mut Words) {
        let g = self.noun.gender;
        let mixed = match self.det {
            Det::Def => {
                if article {
                    out.push(definite(g, self.plural, case));
                }
                false
            }
            Det::Indef if self.plural => false,
            Det::Indef => {
                out.push2("ein", ein_ending(g, false, case));
                true
            }
            Det::No => {
                out.push2("kein", ein_ending(g, self.plural, case));
                true
            }
            Det::Poss(p) => {
                let (bare, stem) = p.de();
                let ending = ein_ending(g, self.plural, case);
                if ending.is_empty() {
                    out.push(bare)
                } else {
                    out.push2(stem, ending)
                }
                true
            }
        };
        if let Some(a) = self.adjective {
            let strong = self.det == Det::Indef && self.plural;
            out.push2(a.stem, adjective_ending(g, self.plural, case, mixed, strong));
        }
        let n = self.noun;
        match (self.plural, case) {
            (true, Case::Dat) if !n.de_plural.ends_with(['n', 's']) => out.push2(n.de_plural, "n"),
            (true, _) => out.push(n.de_plural),
            (false, Case::Acc | Case::Dat) if !n.de_weak.is_empty() => out.push(n.de_weak),
            (false, _) => out.push(n.de),
        }
    }

    /// The English words (`the small dog`).
    pub fn english(&self) -> String {
        let mut w = Words::default();
        self.write_english(&mut w);
        w.into_string()
    }

    pub(crate) fn write_english(&self, out: &mut Words) {
        let noun = if self.plural { self.noun.en_plural } else { self.noun.en };
        let next = self.adjective.map_or(noun, |a| a.en);
        match self.det {
            Det::Def => out.push("the"),
            Det::Indef if self.plural => {}
            Det::Indef => out.push(if next.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }),
            Det::No => out.push("no"),
            Det::Poss(p) => out.push(p.en()),
        }
        if let Some(a) = self.adjective {
            out.push(a.en);
        }
        out.push(noun);
    }
}

/// Words written one after another into one string, separated by single spaces.
#[derive(Clone, Debug, Default)]
pub struct Words(String);

impl Words {
    pub fn push(&mut self, word: &str) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(word);
    }

    /// One word made of two parts (`klein` + `en`).
    pub fn push2(&mut self, a: &str, b: &str) {
        self.push_parts(&[a, b]);
    }

    /// One word made of parts (`auf` + `steh` + `t`).
    pub fn push_parts(&mut self, parts: &[&str]) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        for p in parts {
            self.0.push_str(p);
        }
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

fn definite(g: Gender, plural: bool, case: Case) -> &'static str {
    match (plural, g, case) {
        (true, _, Case::Dat) => "den",
        (true, _, _) => "die",
        (false, Gender::Masc, Case::Nom) => "der",
        (false, Gender::Masc, Case::Acc) => "den",
        (false, Gender::Fem, Case::Dat) => "der",
        (false, Gender::Fem, _) => "die",
        (false, Gender::Neut, Case::Dat) | (false, Gender::Masc, Case::Dat) => "dem",
        (false, Gender::Neut, _) => "das",
    }
}

/// The ending of `ein`, `kein` and the possessives.
fn ein_ending(g: Gender, plural: bool, case: Case) -> &'static str {
    match (plural, g, case) {
        (true, _, Case::Dat) => "en",
        (true, _, _) => "e",
        (false, Gender::Fem, Case::Dat) => "er",
        (false, Gender::Fem, _) => "e",
        (false, _, Case::Dat) => "em",
        (false, Gender::Masc, Case::Acc) => "en",
        (false, _, _) => "",
    }
}

/// The adjective ending: weak after `der`, mixed after `ein`-words, strong with no article.
fn adjective_ending(g: Gender, plural: bool, case: Case, mixed: bool, strong: bool) -> &'static str {
    if strong {
        return if case == Case::Dat { "en" } else { "e" };
    }
    match (plural, g, case) {
        (true, _, _) | (false, _, Case::Dat) | (false, Gender::Masc, Case::Acc) => "en",
        (false, Gender::Masc, Case::Nom) if mixed => "er",
        (false, Gender::Neut, _) if mixed => "es",
        (false, _, _) => "e",
    }
}

/// A personal pronoun. `Sie` (she) and `SiePl` (they) share their German forms `sie`; the verb's
/// ending tells them apart as subjects, but as objects nothing would, so the grammar refuses them
/// there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pronoun {
    Ich,
    Du,
    Er,
    Sie,
    Es,
    Wir,
    Ihr,
    SiePl,
}

impl Pronoun {
    pub const ALL: [Pronoun; 8] =
        [Pronoun::Ich, Pronoun::Du, Pronoun::Er, Pronoun::Sie, Pronoun::Es, Pronoun::Wir, Pronoun::Ihr, Pronoun::SiePl];

    /// The person slot of its verb: 0 `ich`, 1 `du`, 2 `er`/`sie`/`es`, 3 `wir`, 4 `ihr`, 5 `sie`.
    pub fn slot(self) -> usize {
        match self {
            Pronoun::Ich => 0,
            Pronoun::Du => 1,
            Pronoun::Er | Pronoun::Sie | Pronoun::Es => 2,
            Pronoun::Wir => 3,
            Pronoun::Ihr => 4,
            Pronoun::SiePl => 5,
        }
    }

    /// German nominative, accusative and dative.
    pub fn german(self, case: Case) -> &'static str {
        let forms = match self {
            Pronoun::Ich => ["ich", "mich", "mir"],
            Pronoun::Du => ["du", "dich", "dir"],
            Pronoun::Er => ["er", "ihn", "ihm"],
            Pronoun::Sie => ["sie", "sie", "ihr"],
            Pronoun::Es => ["es", "es", "ihm"],
            Pronoun::Wir => ["wir", "uns", "uns"],
            Pronoun::Ihr => ["ihr", "euch", "euch"],
            Pronoun::SiePl => ["sie", "sie", "ihnen"],
        };
        forms[case as usize]
    }

    /// English subject form (`object` false) or object form.
    pub fn english(self, object: bool) -> &'static str {
        let forms = match self {
            Pronoun::Ich => ["I", "me"],
            Pronoun::Du | Pronoun::Ihr => ["you", "you"],
            Pronoun::Er => ["he", "him"],
            Pronoun::Sie => ["she", "her"],
            Pronoun::Es => ["it", "it"],
            Pronoun::Wir => ["we", "us"],
            Pronoun::SiePl => ["they", "them"],
        };
        forms[object as usize]
    }
}

/// A subject, object or prepositional object: a noun phrase or a pronoun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nominal {
    Noun(NounPhrase),
    Pronoun(Pronoun),
}

impl From<NounPhrase> for Nominal {
    fn from(np: NounPhrase) -> Self {
        Nominal::Noun(np)
    }
}

impl From<Pronoun> for Nominal {
    fn from(p: Pronoun) -> Self {
        Nominal::Pronoun(p)
    }
}

impl Nominal {
    /// The verb's person slot (see [`Pronoun::slot`]).
    pub fn slot(&self) -> usize {
        match self {
            Nominal::Noun(np) if np.plural => 5,
            Nominal::Noun(_) => 2,
            Nominal::Pronoun(p) => p.slot(),
        }
    }

    pub(crate) fn write_german(&self, case: Case, out: &mut Words) {
        match self {
            Nominal::Noun(np) => np.write_german(case, true, out),
            Nominal::Pronoun(p) => out.push(p.german(case)),
        }
    }

    pub(crate) fn write_english(&self, object: bool, out: &mut Words) {
        match self {
            Nominal::Noun(np) => np.write_english(out),
            Nominal::Pronoun(p) => out.push(p.english(object)),
        }
    }

    /// The determiner, for a noun phrase.
    pub fn det(&self) -> Option<Det> {
        match self {
            Nominal::Noun(np) => Some(np.det),
            Nominal::Pronoun(_) => None,
        }
    }
}
