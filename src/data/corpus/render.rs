//! Word order: a [`Sentence`] rendered as German and as English, tokens joined by single spaces
//! with the punctuation (`.`, `,`, `?`) as tokens of its own.
//!
//! German: verb second in statements, verb first in questions and after a fronted subordinate
//! clause, verb last in subordinate clauses; participles, infinitives and separable prefixes at
//! the end of the main clause. The middle field runs: subject (when not first), pronoun object,
//! adverb, noun object, `nicht`, prepositional phrase.
//!
//! English: subject, verb, object, prepositional phrase, adverb (first when German fronts it);
//! `do`-support in questions and negations of full verbs, `has`/`have` in the perfect, the modal
//! or `want to`/`has to` before the infinitive; a comma only after a fronted subordinate clause.

use super::clause::{Clause, Pp, Sentence, Tense};
use super::lexicon::{AUX_HABEN, AUX_SEIN, Aux, EnModal, Gender};
use super::phrase::{Case, Det, Nominal, Words};
use candle_core::Result;

impl Sentence {
    /// The German and the English of the sentence, after [`check_grammar`](Sentence::check_grammar).
    pub fn render(&self) -> Result<(String, String)> {
        self.check_grammar()?;
        let (mut de, mut en) = (Words::default(), Words::default());
        self.write_german(&mut de);
        self.write_english(&mut en);
        Ok((de.into_string(), en.into_string()))
    }

    fn write_german(&self, out: &mut Words) {
        let m = &self.main;
        if let Some(s) = self.sub.filter(|s| s.first) {
            german_subordinate(s.conj.german(), &s.clause, out);
            out.push(",");
            german_finite(m, out);
            german_middle(m, true, true, out);
        } else if self.question {
            german_finite(m, out);
            german_middle(m, true, true, out);
        } else if let (true, Some(a)) = (self.front_adverb, m.adverb) {
            out.push(a.de);
            german_finite(m, out);
            german_middle(m, true, false, out);
        } else {
            m.subject.write_german(Case::Nom, out);
            german_finite(m, out);
            german_middle(m, false, true, out);
        }
        german_right(m, out);
        if let Some(s) = self.sub.filter(|s| !s.first) {
            out.push(",");
            german_subordinate(s.conj.german(), &s.clause, out);
        }
        out.push(if self.question { "?" } else { "." });
    }

    fn write_english(&self, out: &mut Words) {
        let m = &self.main;
        if let Some(s) = self.sub.filter(|s| s.first) {
            out.push(s.conj.english());
            english_statement(&s.clause, true, out);
            out.push(",");
            english_statement(m, true, out);
        } else if self.question {
            english_question(m, out);
        } else if let (true, Some(a)) = (self.front_adverb, m.adverb) {
            out.push(a.en);
            english_statement(m, false, out);
        } else {
            english_statement(m, true, out);
        }
        if let Some(s) = self.sub.filter(|s| !s.first) {
            out.push(s.conj.english());
            english_statement(&s.clause, true, out);
        }
        out.push(if self.question { "?" } else { "." });
    }
}

/// The finite verb of a main clause, without a separable prefix (`sieht`, `hat`, `will`).
fn german_finite(c: &Clause, out: &mut Words) {
    let slot = c.subject.slot();
    match c.tense {
        Tense::Present => {
            let (stem, ending) = c.verb.present_parts(slot);
            out.push2(stem, ending);
        }
        Tense::Perfect => out.push(if c.verb.aux == Aux::Haben { &AUX_HABEN } else { &AUX_SEIN }.forms[slot]),
        Tense::Modal(m) => out.push(m.forms[slot]),
    }
}

/// The right bracket of a main clause: separable prefix, participle or infinitive.
fn german_right(c: &Clause, out: &mut Words) {
    let v = c.verb;
    match c.tense {
        Tense::Present if v.prefix.is_empty() => {}
        Tense::Present => out.push(v.prefix),
        Tense::Perfect => out.push(v.participle),
        Tense::Modal(_) => out.push2(v.prefix, v.inf),
    }
}

/// The verbs at the end of a subordinate clause (`aufsteht`, `gesehen hat`, `lesen will`).
fn german_last(c: &Clause, out: &mut Words) {
    let v = c.verb;
    let slot = c.subject.slot();
    match c.tense {
        Tense::Present => {
            let (stem, ending) = v.present_parts(slot);
            out.push_parts(&[v.prefix, stem, ending]);
        }
        _ => {
            german_right(c, out);
            german_finite(c, out);
        }
    }
}

/// The middle field: subject (when asked), pronoun object, adverb (when asked), noun object,
/// `nicht`, prepositional phrase.
fn german_middle(c: &Clause, subject: bool, adverb: bool, out: &mut Words) {
    if subject {
        c.subject.write_german(Case::Nom, out);
    }
    if let Some(o @ Nominal::Pronoun(_)) = c.object {
        o.write_german(Case::Acc, out);
    }
    if let (true, Some(a)) = (adverb, c.adverb) {
        out.push(a.de);
    }
    if let Some(o @ Nominal::Noun(_)) = c.object {
        o.write_german(Case::Acc, out);
    }
    if c.negated {
        out.push("nicht");
    }
    if let Some(pp) = &c.pp {
        german_pp(pp, out);
    }
}

/// A subordinate clause: conjunction, middle field, verbs last (`weil der Hund schläft`).
fn german_subordinate(conj: &str, c: &Clause, out: &mut Words) {
    out.push(conj);
    german_middle(c, true, true, out);
    german_last(c, out);
}

/// `mit dem Hund`; `in dem Haus` contracted to `im Haus`, `zu der Schule` to `zur Schule`.
fn german_pp(pp: &Pp, out: &mut Words) {
    if let Nominal::Noun(np) = pp.object
        && np.det == Det::Def
        && !np.plural
    {
        let merged = if np.noun.gender == Gender::Fem { pp.prep.with_der } else { pp.prep.with_dem };
        if !merged.is_empty() {
            out.push(merged);
            np.write_german(Case::Dat, false, out);
            return;
        }
    }
    out.push(pp.prep.de);
    pp.object.write_german(Case::Dat, out);
}

/// The English verb group: an auxiliary and its negated form when there is one, then the verbs.
struct EnglishVerb {
    aux: Option<(&'static str, &'static str)>,
    rest: [&'static str; 2],
}

fn english_verb(c: &Clause, question: bool) -> EnglishVerb {
    let third = c.subject.slot() == 2;
    let [base, s, participle] = c.verb.en;
    let do_aux = Some(if third { ("does", "does not") } else { ("do", "do not") });
    let needs_do = c.negated || question;
    match c.tense {
        Tense::Present if needs_do => EnglishVerb { aux: do_aux, rest: [base, ""] },
        Tense::Present => EnglishVerb { aux: None, rest: [if third { s } else { base }, ""] },
        Tense::Perfect => EnglishVerb { aux: Some(if third { ("has", "has not") } else { ("have", "have not") }), rest: [participle, ""] },
        Tense::Modal(m) => match m.en {
            EnModal::Aux { word, negated } => EnglishVerb { aux: Some((word, negated)), rest: [base, ""] },
            EnModal::Verb { base: to_base, .. } if needs_do => EnglishVerb { aux: do_aux, rest: [to_base, base] },
            EnModal::Verb { base: to_base, third: to_third } => {
                EnglishVerb { aux: None, rest: [if third { to_third } else { to_base }, base] }
            }
        },
    }
}

/// The verbs after the auxiliary, then object, prepositional phrase and (when asked) the adverb.
fn english_tail(c: &Clause, v: &EnglishVerb, adverb: bool, out: &mut Words) {
    for w in v.rest.iter().filter(|w| !w.is_empty()) {
        out.push(w);
    }
    if let Some(o) = &c.object {
        o.write_english(true, out);
    }
    if let Some(pp) = &c.pp {
        out.push(pp.prep.en);
        pp.object.write_english(true, out);
    }
    if let (true, Some(a)) = (adverb, c.adverb) {
        out.push(a.en);
    }
}

/// `the man does not see the dog today`.
fn english_statement(c: &Clause, adverb: bool, out: &mut Words) {
    let v = english_verb(c, false);
    c.subject.write_english(false, out);
    if let Some((aux, negated)) = v.aux {
        out.push(if c.negated { negated } else { aux });
    }
    english_tail(c, &v, adverb, out);
}

/// `does the man not see the dog today`.
fn english_question(c: &Clause, out: &mut Words) {
    let v = english_verb(c, true);
    if let Some((aux, _)) = v.aux {
        out.push(aux);
    }
    c.subject.write_english(false, out);
    if c.negated {
        out.push("not");
    }
    english_tail(c, &v, true, out);
}
