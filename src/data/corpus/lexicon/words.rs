//! Adjectives, time adverbs and prepositions.

use super::class::*;
use super::pp::{MOTION, PLACE as AT, WITH};
use super::{Adjective, Adverb, Preposition};

const CONCRETE: u16 = ANIMATE | THING | PLACE | FURNITURE | OUTDOOR | PLANT | VEHICLE;
/// Things that have a colour worth naming.
const COLOURED: u16 = THING | FURNITURE | VEHICLE | TEXT | OUTDOOR;
/// Things one buys.
const GOODS: u16 = THING | FOOD | DRINK | VEHICLE | FURNITURE | TEXT;

const fn a(de: &'static str, stem: &'static str, en: &'static str, nouns: u16) -> Adjective {
    Adjective { de, stem, en, nouns }
}

/// Every adjective, in the order the generator indexes them. The stem is what the endings go on
/// (`teuer` -> `teure`, `dunkel` -> `dunkle`).
pub static ADJECTIVES: &[Adjective] = &[
    a("klein", "klein", "small", CONCRETE | FOOD),
    a("groß", "groß", "big", CONCRETE | FOOD),
    a("alt", "alt", "old", CONCRETE | TEXT),
    a("jung", "jung", "young", ANIMATE),
    a("neu", "neu", "new", GOODS | PLACE | OUTDOOR),
    a("schön", "schön", "beautiful", CONCRETE | TEXT),
    a("hässlich", "hässlich", "ugly", CONCRETE),
    a("rot", "rot", "red", COLOURED | FOOD),
    a("blau", "blau", "blue", COLOURED),
    a("grün", "grün", "green", COLOURED | FOOD | PLANT),
    a("gelb", "gelb", "yellow", COLOURED | FOOD),
    a("schwarz", "schwarz", "black", COLOURED | ANIMAL),
    a("weiß", "weiß", "white", COLOURED | ANIMAL),
    a("braun", "braun", "brown", COLOURED | ANIMAL),
    a("grau", "grau", "grey", COLOURED | ANIMAL),
    a("bunt", "bunt", "colourful", COLOURED),
    a("laut", "laut", "loud", ANIMATE | PLACE | VEHICLE),
    a("leise", "leis", "quiet", ANIMATE | PLACE | VEHICLE),
    a("schnell", "schnell", "fast", ANIMATE | VEHICLE),
    a("langsam", "langsam", "slow", ANIMATE | VEHICLE),
    a("müde", "müd", "tired", ANIMATE),
    a("hungrig", "hungrig", "hungry", ANIMATE),
    a("glücklich", "glücklich", "happy", ANIMATE),
    a("traurig", "traurig", "sad", ANIMATE | TEXT),
    a("freundlich", "freundlich", "friendly", ANIMATE),
    a("wütend", "wütend", "angry", ANIMATE),
    a("klug", "klug", "clever", ANIMATE),
    a("reich", "reich", "rich", PERSON),
    a("arm", "arm", "poor", PERSON | ANIMAL),
    a("nett", "nett", "nice", PERSON),
    a("krank", "krank", "sick", ANIMATE),
    a("wild", "wild", "wild", ANIMAL),
    a("lustig", "lustig", "funny", ANIMATE | TEXT),
    a("berühmt", "berühmt", "famous", ANIMATE | PLACE | TEXT),
    a("interessant", "interessant", "interesting", PERSON | PLACE | TEXT),
    a("stark", "stark", "strong", ANIMATE | DRINK),
    a("warm", "warm", "warm", FOOD | DRINK | PLACE | THING),
    a("kalt", "kalt", "cold", FOOD | DRINK | PLACE),
    a("heiß", "heiß", "hot", FOOD | DRINK),
    a("frisch", "frisch", "fresh", FOOD | DRINK),
    a("süß", "süß", "sweet", FOOD | DRINK | ANIMAL),
    a("lecker", "lecker", "tasty", FOOD | DRINK),
    a("schwer", "schwer", "heavy", THING | FURNITURE | TEXT),
    a("leicht", "leicht", "light", THING),
    a("teuer", "teur", "expensive", GOODS | PLACE),
    a("billig", "billig", "cheap", GOODS),
    a("sauber", "sauber", "clean", THING | PLACE | FURNITURE | VEHICLE | ANIMAL),
    a("schmutzig", "schmutzig", "dirty", CONCRETE),
    a("dunkel", "dunkl", "dark", PLACE | FURNITURE | THING),
    a("lang", "lang", "long", TEXT | OUTDOOR | VEHICLE),
    a("kurz", "kurz", "short", TEXT | OUTDOOR),
    a("hübsch", "hübsch", "pretty", PERSON | ANIMAL | THING | PLACE),
];

const fn t(de: &'static str, en: &'static str, with_perfect: bool) -> Adverb {
    Adverb { de, en, with_perfect }
}

/// Time adverbs and phrases; English puts them first when German fronts them, last otherwise.
pub static ADVERBS: &[Adverb] = &[
    t("heute", "today", true),
    t("jetzt", "now", true),
    t("abends", "in the evening", false),
    t("morgens", "in the morning", false),
    t("nachts", "at night", false),
    t("mittags", "at noon", false),
    t("am Montag", "on Monday", false),
    t("am Dienstag", "on Tuesday", false),
    t("am Mittwoch", "on Wednesday", false),
    t("am Donnerstag", "on Thursday", false),
    t("am Freitag", "on Friday", false),
    t("am Samstag", "on Saturday", false),
    t("am Sonntag", "on Sunday", false),
    t("am Wochenende", "at the weekend", false),
    t("im Sommer", "in summer", false),
    t("im Winter", "in winter", false),
    t("im Frühling", "in spring", false),
    t("im Herbst", "in autumn", false),
];

const fn p(de: &'static str, en: &'static str, kind: u8, nouns: u16, with_dem: &'static str, with_der: &'static str) -> Preposition {
    Preposition { de, en, kind, nouns, with_dem, with_der }
}

/// Where things stand.
const SPOTS: u16 = PLACE | FURNITURE | OUTDOOR | PLANT | VEHICLE;

/// The prepositions, all with the dative.
pub static PREPOSITIONS: &[Preposition] = &[
    p("in", "in", AT, PLACE | VEHICLE, "im", ""),
    p("auf", "on", AT, FURNITURE | OUTDOOR, "", ""),
    p("unter", "under", AT, FURNITURE | OUTDOOR | PLANT | VEHICLE, "", ""),
    p("neben", "next to", AT, SPOTS, "", ""),
    p("hinter", "behind", AT, SPOTS, "", ""),
    p("vor", "in front of", AT, SPOTS, "", ""),
    p("mit", "with", WITH, ANIMATE | THING, "", ""),
    p("zu", "to", MOTION, PLACE | PERSON, "zum", "zur"),
    p("von", "from", MOTION, PLACE | PERSON, "vom", ""),
    p("aus", "out of", MOTION, PLACE | VEHICLE, "", ""),
];
