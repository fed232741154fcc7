//! Random abstract sentences: each choice drawn from the crate's own MT19937
//! [`Generator`], over tables in a fixed order, so a seed gives the same
//! sentences on every machine. Semantic classes keep them sensible (people read books, dogs
//! bark); the draws respect every rule of [`Sentence::check_grammar`], so each one renders.

use super::clause::{Clause, Conj, Pp, Sentence, Subordinate, Tense};
use super::config::GrammarMix;
use super::lexicon::{ADJECTIVES, ADVERBS, Complement, MODALS, NOUNS, PREPOSITIONS, VERBS, class};
use super::phrase::{Det, Nominal, NounPhrase, Possessive, Pronoun};
use crate::repro::Generator;
use std::collections::BTreeMap;

/// Determiner weights: definite, indefinite (bare in the plural), `kein`, possessive.
const DET_WEIGHTS: [f64; 4] = [0.5, 0.25, 0.1, 0.15];

/// Where a noun phrase stands; pronouns are restricted by it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Subject,
    Object,
    PpObject,
}

/// Which table a cached list of candidates indexes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Verbs,
    Nouns,
    Adjectives,
    Adverbs,
    Prepositions,
}

/// Draws random sentences from one seed. Candidate lists (the nouns of a class mask, the
/// adjectives of a noun class, ...) are computed once and kept: the same picks as filtering the
/// table each time, several times faster.
pub struct Sampler<'a> {
    g: Generator,
    mix: &'a GrammarMix,
    cache: BTreeMap<(Table, u16), Vec<usize>>,
}

impl<'a> Sampler<'a> {
    pub fn new(seed: u64, mix: &'a GrammarMix) -> Self {
        Sampler { g: Generator::new(seed), mix, cache: BTreeMap::new() }
    }

    /// An index in `0..n` (n > 0) by multiply-shift of one 32-bit draw.
    fn index(&mut self, n: usize) -> usize {
        ((self.g.random_u32() as u64 * n as u64) >> 32) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.g.uniform_f64(0.0, 1.0) < p
    }

    /// A uniform pick among the entries of `table` that pass `ok`, which must depend on `key`
    /// alone; `None` when none does.
    fn pick<T>(&mut self, which: Table, key: u16, table: &'static [T], ok: impl Fn(&T) -> bool) -> Option<&'static T> {
        let list = self.cache.entry((which, key)).or_insert_with(|| (0..table.len()).filter(|&i| ok(&table[i])).collect());
        let n = list.len();
        if n == 0 {
            return None;
        }
        let i = ((self.g.random_u32() as u64 * n as u64) >> 32) as usize;
        Some(&table[list[i]])
    }

    /// One random sentence.
    pub fn sentence(&mut self) -> Sentence {
        let clause_verb = self.chance(self.mix.clause_verb);
        let question = self.chance(self.mix.question);
        let main = self.clause(clause_verb);
        let mut s = Sentence { main, question, front_adverb: false, sub: None };
        if let Complement::Clause { dass, ob } = main.verb.complement {
            let conj = match (dass, ob) {
                (true, true) => [Conj::Dass, Conj::Ob][self.index(2)],
                (true, false) => Conj::Dass,
                _ => Conj::Ob,
            };
            s.sub = Some(Subordinate { conj, clause: self.clause(false), first: false });
        } else if self.chance(self.mix.subordinate) {
            let conj = Conj::ADVERBIAL[self.index(Conj::ADVERBIAL.len())];
            let first = !question && self.chance(self.mix.subordinate_first);
            s.sub = Some(Subordinate { conj, clause: self.clause(false), first });
        }
        let sub_first = s.sub.is_some_and(|s| s.first);
        s.front_adverb = !question && !sub_first && main.adverb.is_some() && self.chance(self.mix.front_adverb);
        s
    }

    /// One random clause; `clause_verb` picks a verb that takes a `dass`/`ob` clause.
    fn clause(&mut self, clause_verb: bool) -> Clause {
        let mix = self.mix;
        // Every table below has entries of each kind asked for, so the picks cannot come back empty.
        let verb = self
            .pick(Table::Verbs, clause_verb as u16, VERBS, |v| matches!(v.complement, Complement::Clause { .. }) == clause_verb)
            .unwrap_or(&VERBS[0]);
        let r = self.g.uniform_f64(0.0, 1.0);
        let tense = if r < mix.perfect {
            Tense::Perfect
        } else if r < mix.perfect + mix.modal {
            Tense::Modal(&MODALS[self.index(MODALS.len())])
        } else {
            Tense::Present
        };
        let negated = self.chance(mix.negation);
        let subject = self.nominal(verb.subject, Role::Subject, None, negated);
        let object = match verb.complement {
            Complement::Object(mask) => Some(self.nominal(mask, Role::Object, Some(subject), negated)),
            _ => None,
        };
        let mut pp = None;
        if verb.pps != 0 && self.chance(mix.pp) {
            let pps = verb.pps;
            let prep = self.pick(Table::Prepositions, pps as u16, PREPOSITIONS, |p| p.kind & pps != 0).unwrap_or(&PREPOSITIONS[0]);
            let object = self.nominal(prep.nouns, Role::PpObject, Some(subject), negated);
            pp = Some(Pp { prep, object });
        }
        let perfect = tense == Tense::Perfect;
        let adverb =
            if self.chance(mix.adverb) { self.pick(Table::Adverbs, perfect as u16, ADVERBS, |a| !perfect || a.with_perfect) } else { None };
        Clause { subject, verb, object, tense, negated, adverb, pp }
    }

    /// A noun phrase or pronoun for a noun of a class in `mask`.
    fn nominal(&mut self, mask: u16, role: Role, subject: Option<Nominal>, negated: bool) -> Nominal {
        let mix = self.mix;
        if self.chance(mix.pronoun)
            && let Some(p) = self.pronoun(mask, role, subject)
        {
            return Nominal::Pronoun(p);
        }
        let noun = self.pick(Table::Nouns, mask, NOUNS, |n| n.class & mask != 0).unwrap_or(&NOUNS[0]);
        let plural = self.chance(mix.plural);
        let r = self.g.uniform_f64(0.0, 1.0);
        let mut det = if r < DET_WEIGHTS[0] {
            Det::Def
        } else if r < DET_WEIGHTS[0] + DET_WEIGHTS[1] {
            Det::Indef
        } else if r < DET_WEIGHTS[0] + DET_WEIGHTS[1] + DET_WEIGHTS[2] {
            Det::No
        } else {
            Det::Poss(Possessive::ALL[self.index(Possessive::ALL.len())])
        };
        // `nicht` and `kein` do not meet in one clause, and `nicht` does not negate `ein`.
        if negated && (det == Det::No || (role == Role::Object && det == Det::Indef)) {
            det = Det::Def;
        }
        let class = noun.class;
        let adjective =
            if self.chance(mix.adjective) { self.pick(Table::Adjectives, class, ADJECTIVES, |a| a.nouns & class != 0) } else { None };
        Nominal::Noun(NounPhrase { det, adjective, noun, plural })
    }

    /// A pronoun that may stand in `role` for a noun of a class in `mask`, or `None`.
    fn pronoun(&mut self, mask: u16, role: Role, subject: Option<Nominal>) -> Option<Pronoun> {
        let ok: Vec<Pronoun> = Pronoun::ALL.into_iter().filter(|&p| pronoun_fits(p, mask, role, subject)).collect();
        if ok.is_empty() { None } else { Some(ok[self.index(ok.len())]) }
    }
}

/// Whether pronoun `p` may stand in `role` for a noun of a class in `mask`: `es` for things and
/// animals, the others for people; no `sie` as an object, no `es` after a preposition, no
/// 1st/2nd person object of its own subject (that would need a reflexive).
fn pronoun_fits(p: Pronoun, mask: u16, role: Role, subject: Option<Nominal>) -> bool {
    let fits = if p == Pronoun::Es { mask & !class::PERSON != 0 } else { mask & class::PERSON != 0 };
    let reflexive = subject == Some(Nominal::Pronoun(p)) && !matches!(p.slot(), 2 | 5);
    let allowed = match role {
        Role::Subject => true,
        Role::Object => !matches!(p, Pronoun::Sie | Pronoun::SiePl),
        Role::PpObject => p != Pronoun::Es,
    };
    fits && allowed && !reflexive
}
