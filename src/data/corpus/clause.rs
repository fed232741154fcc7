//! The abstract sentence both languages are rendered from: a [`Clause`] (subject, verb, object,
//! tense, negation, time adverb, prepositional phrase) and a [`Sentence`] (a main clause, a
//! statement or a yes/no question, with an optional subordinate clause).
//!
//! Build one by hand to see how the grammar renders it:
//!
//! ```
//! use attention_zoo::data::corpus::{Clause, NounPhrase, Sentence};
//! # fn main() -> candle_core::Result<()> {
//! let clause = Clause::new(NounPhrase::the("Mann")?, "sehen")?.object(NounPhrase::the("Hund")?).perfect();
//! let (de, en) = Sentence::statement(clause).render()?;
//! assert_eq!(de, "der Mann hat den Hund gesehen .");
//! assert_eq!(en, "the man has seen the dog .");
//! # Ok(())
//! # }
//! ```

use super::lexicon::{self, Adverb, Complement, Modal, Preposition, Verb};
use super::phrase::{Det, Nominal, Pronoun};
use candle_core::{Result, bail};

/// Tense and mood of a clause's verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tense {
    /// `sieht` -> `sees`.
    Present,
    /// `hat ... gesehen` -> `has seen`; `ist ... gegangen` -> `has gone`.
    Perfect,
    /// `will ... lesen` -> `wants to read`; `kann ... sehen` -> `can see`.
    Modal(&'static Modal),
}

/// A prepositional phrase with the dative: `mit dem Hund` -> `with the dog`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pp {
    pub prep: &'static Preposition,
    pub object: Nominal,
}

/// One clause, before word order: the main clause and the subordinate clause of a [`Sentence`]
/// are both `Clause`s, ordered verb-second, verb-first or verb-last as the sentence needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clause {
    pub subject: Nominal,
    pub verb: &'static Verb,
    /// The accusative object; present exactly when the verb is transitive.
    pub object: Option<Nominal>,
    pub tense: Tense,
    /// `nicht` -> `not` (with `do` in English where needed).
    pub negated: bool,
    pub adverb: Option<&'static Adverb>,
    pub pp: Option<Pp>,
}

impl Clause {
    /// A present-tense clause of the verb `verb` (full infinitive, `sehen`, `aufstehen`).
    pub fn new(subject: impl Into<Nominal>, verb: &str) -> Result<Self> {
        let verb = lexicon::verb(verb)?;
        Ok(Clause { subject: subject.into(), verb, object: None, tense: Tense::Present, negated: false, adverb: None, pp: None })
    }

    /// With an accusative object.
    pub fn object(mut self, object: impl Into<Nominal>) -> Self {
        self.object = Some(object.into());
        self
    }

    /// In the perfect.
    pub fn perfect(mut self) -> Self {
        self.tense = Tense::Perfect;
        self
    }

    /// With the modal `modal` (`wollen`, `können`, `müssen`, `dürfen`, `sollen`, `werden`).
    pub fn modal(mut self, modal: &str) -> Result<Self> {
        self.tense = Tense::Modal(lexicon::modal(modal)?);
        Ok(self)
    }

    /// Negated with `nicht`.
    pub fn negated(mut self) -> Self {
        self.negated = true;
        self
    }

    /// With the time adverb `adverb` (`heute`, `am Montag`).
    pub fn adverb(mut self, adverb: &str) -> Result<Self> {
        self.adverb = Some(lexicon::adverb(adverb)?);
        Ok(self)
    }

    /// With the prepositional phrase `prep` + `object` (in the dative).
    pub fn pp(mut self, prep: &str, object: impl Into<Nominal>) -> Result<Self> {
        self.pp = Some(Pp { prep: lexicon::preposition(prep)?, object: object.into() });
        Ok(self)
    }

    /// Checks what the renderer cannot say correctly in both languages.
    pub fn check_grammar(&self) -> Result<()> {
        let v = self.verb.lemma();
        match (self.verb.complement, &self.object) {
            (Complement::Object(_), None) => bail!("corpus: `{v}` is transitive, the clause has no object"),
            (Complement::None | Complement::Clause { .. }, Some(_)) => bail!("corpus: `{v}` takes no accusative object"),
            _ => {}
        }
        let subject_person = self.subject.slot();
        if let Some(Nominal::Pronoun(p)) = self.object {
            if matches!(p, Pronoun::Sie | Pronoun::SiePl) {
                bail!("corpus: the object pronoun `sie` is ambiguous (her or them); use a noun")
            }
            if p.slot() == subject_person && !matches!(p.slot(), 2 | 5) {
                bail!("corpus: object `{}` is the subject's own person: that needs a reflexive", p.german(super::phrase::Case::Acc))
            }
        }
        if let Some(pp) = &self.pp
            && let Nominal::Pronoun(p) = pp.object
        {
            if p == Pronoun::Es {
                bail!("corpus: `{} ihm` with `es` is ambiguous (it or him); use a noun", pp.prep.de)
            }
            if p.slot() == subject_person && !matches!(p.slot(), 2 | 5) {
                bail!(
                    "corpus: `{}` after `{}` is the subject's own person: that needs a reflexive",
                    p.german(super::phrase::Case::Dat),
                    pp.prep.de
                )
            }
        }
        let dets = [Some(self.subject), self.object, self.pp.map(|p| p.object)];
        if self.negated {
            if dets.iter().flatten().any(|n| n.det() == Some(Det::No)) {
                bail!("corpus: a clause negated with `nicht` cannot also have `kein`")
            }
            if self.object.and_then(|o| o.det()) == Some(Det::Indef) {
                bail!("corpus: German negates an indefinite object with `kein`, not `nicht`; use Det::No without `negated`")
            }
        }
        if self.tense == Tense::Perfect
            && let Some(a) = self.adverb
            && !a.with_perfect
        {
            bail!("corpus: English does not put `{}` with the present perfect", a.en)
        }
        Ok(())
    }
}

/// A subordinating conjunction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conj {
    /// `weil` -> `because`.
    Weil,
    /// `wenn` -> `if`.
    Wenn,
    /// `obwohl` -> `although`.
    Obwohl,
    /// `dass` -> `that`, after verbs such as `sagen`.
    Dass,
    /// `ob` -> `whether`, after `fragen` and `wissen`.
    Ob,
}

impl Conj {
    /// The conjunctions that start an adverbial clause (any main clause takes one).
    pub const ADVERBIAL: [Conj; 3] = [Conj::Weil, Conj::Wenn, Conj::Obwohl];

    pub fn german(self) -> &'static str {
        match self {
            Conj::Weil => "weil",
            Conj::Wenn => "wenn",
            Conj::Obwohl => "obwohl",
            Conj::Dass => "dass",
            Conj::Ob => "ob",
        }
    }

    pub fn english(self) -> &'static str {
        match self {
            Conj::Weil => "because",
            Conj::Wenn => "if",
            Conj::Obwohl => "although",
            Conj::Dass => "that",
            Conj::Ob => "whether",
        }
    }

    /// `dass` and `ob` complete a verb; the others add to any clause.
    pub fn is_complement(self) -> bool {
        matches!(self, Conj::Dass | Conj::Ob)
    }
}

/// A subordinate clause (verb last in German) and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subordinate {
    pub conj: Conj,
    pub clause: Clause,
    /// Before the main clause (`wenn ... , liest der Mann ...`), which then starts with its verb.
    pub first: bool,
}

/// A whole sentence: the unit of the corpus, one German and one English string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sentence {
    pub main: Clause,
    /// A yes/no question: verb first in German, `do`-support or an auxiliary first in English.
    pub question: bool,
    /// The main clause's adverb stands first (`heute sieht der Mann ...` -> `today the man sees ...`).
    pub front_adverb: bool,
    pub sub: Option<Subordinate>,
}

impl Sentence {
    /// A statement, verb second.
    pub fn statement(main: Clause) -> Self {
        Sentence { main, question: false, front_adverb: false, sub: None }
    }

    /// A yes/no question, verb first.
    pub fn question(main: Clause) -> Self {
        Sentence { question: true, ..Sentence::statement(main) }
    }

    /// Fronts the main clause's adverb.
    pub fn front_adverb(mut self) -> Self {
        self.front_adverb = true;
        self
    }

    /// Adds a subordinate clause after the main clause.
    pub fn subordinate(mut self, conj: Conj, clause: Clause) -> Self {
        self.sub = Some(Subordinate { conj, clause, first: false });
        self
    }

    /// Adds a subordinate clause before the main clause.
    pub fn subordinate_first(mut self, conj: Conj, clause: Clause) -> Self {
        self.sub = Some(Subordinate { conj, clause, first: true });
        self
    }

    /// Checks the sentence: each clause, and that the clauses fit together.
    pub fn check_grammar(&self) -> Result<()> {
        self.main.check_grammar()?;
        let v = self.main.verb.lemma();
        if self.front_adverb && self.main.adverb.is_none() {
            bail!("corpus: front_adverb is set but the main clause has no adverb")
        }
        if self.front_adverb && self.question {
            bail!("corpus: a yes/no question starts with its verb, it cannot front the adverb")
        }
        let (dass, ob) = match self.main.verb.complement {
            Complement::Clause { dass, ob } => (dass, ob),
            _ => (false, false),
        };
        match &self.sub {
            None if dass || ob => bail!("corpus: `{v}` needs a `dass` or `ob` clause"),
            None => {}
            Some(s) => {
                s.clause.check_grammar()?;
                if matches!(s.clause.verb.complement, Complement::Clause { .. }) {
                    bail!("corpus: `{}` in a subordinate clause would need a clause of its own", s.clause.verb.lemma())
                }
                match s.conj {
                    Conj::Dass if !dass => bail!("corpus: `{v}` does not take a `dass` clause"),
                    Conj::Ob if !ob => bail!("corpus: `{v}` does not take an `ob` clause"),
                    c if !c.is_complement() && (dass || ob) => bail!("corpus: `{v}` needs a `dass` or `ob` clause, not `{}`", c.german()),
                    _ => {}
                }
                if s.first && (s.conj.is_complement() || self.question || self.front_adverb) {
                    bail!("corpus: only an adverbial clause of a statement without a fronted adverb can come first")
                }
            }
        }
        Ok(())
    }
}
