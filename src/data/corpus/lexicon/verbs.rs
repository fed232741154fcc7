//! The verbs: full verbs (transitive, intransitive, separable, verbs that take a clause), the
//! modal verbs (and `werden`), and the perfect auxiliaries `haben` and `sein`.

use super::Aux::{Haben as H, Sein as S};
use super::Complement::{self, None as I, Object as O};
use super::class::*;
use super::pp::{MOTION, PLACE as AT, WITH};
use super::{Auxiliary, EnModal, Modal, Verb};

/// Any noun.
const ANY: u16 = u16::MAX;
/// Things one can hold, give or fetch.
const PORTABLE: u16 = THING | FOOD | DRINK | TEXT;
/// What one can draw or paint.
const VISIBLE: u16 = PERSON | ANIMAL | THING | PLACE | OUTDOOR | PLANT | VEHICLE;
const THAT: Complement = Complement::Clause { dass: true, ob: false };
const WHETHER: Complement = Complement::Clause { dass: false, ob: true };
const BOTH: Complement = Complement::Clause { dass: true, ob: true };

const fn v(inf: &'static str, part: &'static str, en: [&'static str; 3], subject: u16, complement: Complement, pps: u8) -> Verb {
    Verb::new(inf, part, H, en, subject, complement, pps)
}

/// Intransitive with `sein` in the perfect.
const fn s(inf: &'static str, part: &'static str, en: [&'static str; 3], subject: u16, pps: u8) -> Verb {
    Verb::new(inf, part, S, en, subject, I, pps)
}

/// Every full verb, in the order the generator indexes them.
pub static VERBS: &[Verb] = &[
    // Transitive.
    v("sehen", "gesehen", ["see", "sees", "seen"], ANIMATE, O(ANY), AT).irr("siehst", "sieht"),
    v("lesen", "gelesen", ["read", "reads", "read"], PERSON, O(TEXT), AT | WITH).irr("liest", "liest"),
    v("essen", "gegessen", ["eat", "eats", "eaten"], ANIMATE, O(FOOD), AT | WITH).irr("isst", "isst"),
    v("trinken", "getrunken", ["drink", "drinks", "drunk"], ANIMATE, O(DRINK), AT | WITH),
    v("nehmen", "genommen", ["take", "takes", "taken"], PERSON, O(PORTABLE), AT).irr("nimmst", "nimmt"),
    v("finden", "gefunden", ["find", "finds", "found"], ANIMATE, O(PORTABLE | ANIMATE), AT | WITH),
    v("kaufen", "gekauft", ["buy", "buys", "bought"], PERSON, O(PORTABLE | VEHICLE | ANIMAL), AT | WITH),
    v("verkaufen", "verkauft", ["sell", "sells", "sold"], PERSON, O(PORTABLE | VEHICLE | ANIMAL), AT | WITH),
    v("suchen", "gesucht", ["look for", "looks for", "looked for"], ANIMATE, O(PORTABLE | ANIMATE), AT | WITH),
    v("brauchen", "gebraucht", ["need", "needs", "needed"], PERSON, O(PORTABLE | VEHICLE | FURNITURE), 0),
    v("lieben", "geliebt", ["love", "loves", "loved"], PERSON, O(ANIMATE), 0),
    v("hören", "gehört", ["hear", "hears", "heard"], ANIMATE, O(ANIMATE | VEHICLE), AT),
    v("malen", "gemalt", ["paint", "paints", "painted"], PERSON, O(VISIBLE | FOOD), AT | WITH),
    v("bauen", "gebaut", ["build", "builds", "built"], PERSON, O(PLACE | FURNITURE | OUTDOOR | VEHICLE), WITH),
    v("tragen", "getragen", ["carry", "carries", "carried"], ANIMATE, O(PORTABLE), AT | WITH).irr("trägst", "trägt"),
    v("halten", "gehalten", ["hold", "holds", "held"], PERSON, O(PORTABLE | ANIMAL), AT).irr("hältst", "hält"),
    v("fangen", "gefangen", ["catch", "catches", "caught"], ANIMATE, O(ANIMAL | THING), AT | WITH).irr("fängst", "fängt"),
    v("werfen", "geworfen", ["throw", "throws", "thrown"], PERSON, O(THING | FOOD), AT).irr("wirfst", "wirft"),
    v("treffen", "getroffen", ["meet", "meets", "met"], PERSON, O(PERSON), AT | WITH).irr("triffst", "trifft"),
    v("kennen", "gekannt", ["know", "knows", "known"], ANIMATE, O(PERSON | ANIMAL | PLACE | TEXT), 0),
    v("besuchen", "besucht", ["visit", "visits", "visited"], PERSON, O(PERSON | PLACE), WITH),
    v("waschen", "gewaschen", ["wash", "washes", "washed"], PERSON, O(ANIMATE | THING | VEHICLE), AT | WITH).irr("wäschst", "wäscht"),
    v("öffnen", "geöffnet", ["open", "opens", "opened"], PERSON, O(THING | TEXT), AT | WITH),
    v("schließen", "geschlossen", ["close", "closes", "closed"], PERSON, O(THING | TEXT | PLACE), WITH),
    v("schreiben", "geschrieben", ["write", "writes", "written"], PERSON, O(TEXT), AT | WITH),
    v("zeichnen", "gezeichnet", ["draw", "draws", "drawn"], PERSON, O(VISIBLE), AT | WITH),
    v("bringen", "gebracht", ["bring", "brings", "brought"], ANIMATE, O(PORTABLE), WITH),
    v("holen", "geholt", ["fetch", "fetches", "fetched"], ANIMATE, O(PORTABLE | PERSON), WITH),
    v("verstehen", "verstanden", ["understand", "understands", "understood"], PERSON, O(PERSON | TEXT), 0),
    v("beobachten", "beobachtet", ["watch", "watches", "watched"], ANIMATE, O(ANIMATE | VEHICLE), AT | WITH),
    v("füttern", "gefüttert", ["feed", "feeds", "fed"], PERSON, O(ANIMATE), AT | WITH),
    v("rufen", "gerufen", ["call", "calls", "called"], ANIMATE, O(ANIMATE), AT),
    v("kochen", "gekocht", ["cook", "cooks", "cooked"], PERSON, O(FOOD | DRINK), AT | WITH),
    v("backen", "gebacken", ["bake", "bakes", "baked"], PERSON, O(FOOD), AT | WITH),
    v("putzen", "geputzt", ["clean", "cleans", "cleaned"], PERSON, O(PLACE | FURNITURE | THING | VEHICLE), WITH),
    v("reparieren", "repariert", ["repair", "repairs", "repaired"], PERSON, O(THING | FURNITURE | VEHICLE), AT | WITH),
    v("vergessen", "vergessen", ["forget", "forgets", "forgotten"], PERSON, O(PORTABLE | PERSON), AT).irr("vergisst", "vergisst"),
    v("bestellen", "bestellt", ["order", "orders", "ordered"], PERSON, O(FOOD | DRINK | THING), AT | WITH),
    v("zeigen", "gezeigt", ["show", "shows", "shown"], PERSON, O(THING | TEXT | PLACE), WITH),
    v("schneiden", "geschnitten", ["cut", "cuts", "cut"], PERSON, O(FOOD), AT | WITH),
    v("fotografieren", "fotografiert", ["photograph", "photographs", "photographed"], PERSON, O(VISIBLE), AT | WITH),
    v("streicheln", "gestreichelt", ["stroke", "strokes", "stroked"], PERSON, O(ANIMAL), AT).ich("streichle"),
    v("rufen", "angerufen", ["phone", "phones", "phoned"], PERSON, O(PERSON), AT).sep("an"),
    v("laden", "eingeladen", ["invite", "invites", "invited"], PERSON, O(PERSON), 0).sep("ein").irr("lädst", "lädt"),
    v("schauen", "angeschaut", ["look at", "looks at", "looked at"], ANIMATE, O(ANY), AT | WITH).sep("an"),
    v("räumen", "aufgeräumt", ["tidy up", "tidies up", "tidied up"], PERSON, O(PLACE | FURNITURE), WITH).sep("auf"),
    v("holen", "abgeholt", ["pick up", "picks up", "picked up"], PERSON, O(PERSON | PORTABLE), WITH).sep("ab"),
    // Intransitive, perfect with haben.
    v("schlafen", "geschlafen", ["sleep", "sleeps", "slept"], ANIMATE, I, AT | WITH).irr("schläfst", "schläft"),
    v("lachen", "gelacht", ["laugh", "laughs", "laughed"], PERSON, I, AT | WITH),
    v("weinen", "geweint", ["cry", "cries", "cried"], PERSON, I, AT),
    v("singen", "gesungen", ["sing", "sings", "sung"], ANIMATE, I, AT | WITH),
    v("tanzen", "getanzt", ["dance", "dances", "danced"], PERSON, I, AT | WITH),
    v("arbeiten", "gearbeitet", ["work", "works", "worked"], PERSON, I, AT | WITH),
    v("spielen", "gespielt", ["play", "plays", "played"], ANIMATE, I, AT | WITH),
    v("warten", "gewartet", ["wait", "waits", "waited"], ANIMATE, I, AT | WITH),
    v("sitzen", "gesessen", ["sit", "sits", "sat"], ANIMATE, I, AT | WITH),
    v("stehen", "gestanden", ["stand", "stands", "stood"], ANIMATE | FURNITURE | VEHICLE, I, AT),
    v("liegen", "gelegen", ["lie", "lies", "lain"], ANIMATE | PORTABLE, I, AT),
    v("träumen", "geträumt", ["dream", "dreams", "dreamed"], ANIMATE, I, AT),
    v("lernen", "gelernt", ["learn", "learns", "learned"], PERSON, I, AT | WITH),
    v("rauchen", "geraucht", ["smoke", "smokes", "smoked"], PERSON, I, AT),
    v("husten", "gehustet", ["cough", "coughs", "coughed"], ANIMATE, I, AT),
    v("atmen", "geatmet", ["breathe", "breathes", "breathed"], ANIMATE, I, 0),
    v("bellen", "gebellt", ["bark", "barks", "barked"], ANIMAL, I, AT),
    v("schreien", "geschrien", ["scream", "screams", "screamed"], ANIMATE, I, AT),
    v("lächeln", "gelächelt", ["smile", "smiles", "smiled"], PERSON, I, AT).ich("lächle"),
    v("schwitzen", "geschwitzt", ["sweat", "sweats", "sweated"], ANIMATE, I, AT),
    v("joggen", "gejoggt", ["jog", "jogs", "jogged"], PERSON, I, AT | WITH),
    v("frühstücken", "gefrühstückt", ["have breakfast", "has breakfast", "had breakfast"], PERSON, I, AT | WITH),
    v("kaufen", "eingekauft", ["go shopping", "goes shopping", "gone shopping"], PERSON, I, AT | WITH).sep("ein"),
    // Intransitive, perfect with sein.
    s("gehen", "gegangen", ["go", "goes", "gone"], ANIMATE, MOTION | WITH),
    s("kommen", "gekommen", ["come", "comes", "come"], ANIMATE, MOTION | WITH),
    s("laufen", "gelaufen", ["walk", "walks", "walked"], ANIMATE, AT | MOTION | WITH).irr("läufst", "läuft"),
    s("rennen", "gerannt", ["run", "runs", "run"], ANIMATE, AT | MOTION | WITH),
    s("fahren", "gefahren", ["travel", "travels", "travelled"], PERSON, MOTION | WITH).irr("fährst", "fährt"),
    s("fliegen", "geflogen", ["fly", "flies", "flown"], ANIMATE, MOTION),
    s("schwimmen", "geschwommen", ["swim", "swims", "swum"], ANIMATE, AT | WITH),
    s("springen", "gesprungen", ["jump", "jumps", "jumped"], ANIMATE, AT | WITH),
    s("fallen", "gefallen", ["fall", "falls", "fallen"], ANY, AT).irr("fällst", "fällt"),
    s("bleiben", "geblieben", ["stay", "stays", "stayed"], ANIMATE, AT | WITH),
    s("wandern", "gewandert", ["hike", "hikes", "hiked"], PERSON, AT | WITH),
    s("klettern", "geklettert", ["climb", "climbs", "climbed"], ANIMATE, AT | WITH),
    s("stehen", "aufgestanden", ["get up", "gets up", "got up"], ANIMATE, 0).sep("auf"),
    s("schlafen", "eingeschlafen", ["fall asleep", "falls asleep", "fallen asleep"], ANIMATE, AT).sep("ein").irr("schläfst", "schläft"),
    s("kommen", "angekommen", ["arrive", "arrives", "arrived"], ANIMATE | VEHICLE, WITH).sep("an"),
    s("fahren", "abgefahren", ["leave", "leaves", "left"], PERSON | VEHICLE, WITH).sep("ab").irr("fährst", "fährt"),
    // Verbs that take a clause.
    v("sagen", "gesagt", ["say", "says", "said"], PERSON, THAT, 0),
    v("glauben", "geglaubt", ["believe", "believes", "believed"], PERSON, THAT, 0),
    v("denken", "gedacht", ["think", "thinks", "thought"], PERSON, THAT, 0),
    v("hoffen", "gehofft", ["hope", "hopes", "hoped"], PERSON, THAT, 0),
    v("merken", "gemerkt", ["notice", "notices", "noticed"], PERSON, THAT, 0),
    v("fragen", "gefragt", ["ask", "asks", "asked"], PERSON, WHETHER, 0),
    v("wissen", "gewusst", ["know", "knows", "known"], PERSON, BOTH, 0).irr("weißt", "weiß").ich("weiß"),
];

const fn m(inf: &'static str, forms: [&'static str; 6], en: EnModal) -> Modal {
    Modal { inf, forms, en }
}

const fn aux(word: &'static str, negated: &'static str) -> EnModal {
    EnModal::Aux { word, negated }
}

const fn to(base: &'static str, third: &'static str) -> EnModal {
    EnModal::Verb { base, third }
}

/// The modal verbs and `werden` (future), with their infinitive at the end of the clause.
pub static MODALS: &[Modal] = &[
    m("können", ["kann", "kannst", "kann", "können", "könnt", "können"], aux("can", "cannot")),
    m("wollen", ["will", "willst", "will", "wollen", "wollt", "wollen"], to("want to", "wants to")),
    m("müssen", ["muss", "musst", "muss", "müssen", "müsst", "müssen"], to("have to", "has to")),
    m("dürfen", ["darf", "darfst", "darf", "dürfen", "dürft", "dürfen"], aux("may", "may not")),
    m("sollen", ["soll", "sollst", "soll", "sollen", "sollt", "sollen"], aux("should", "should not")),
    m("werden", ["werde", "wirst", "wird", "werden", "werdet", "werden"], aux("will", "will not")),
];

/// `haben`, the perfect auxiliary of most verbs.
pub static AUX_HABEN: Auxiliary = Auxiliary { forms: ["habe", "hast", "hat", "haben", "habt", "haben"] };

/// `sein`, the perfect auxiliary of verbs of motion and change.
pub static AUX_SEIN: Auxiliary = Auxiliary { forms: ["bin", "bist", "ist", "sind", "seid", "sind"] };
