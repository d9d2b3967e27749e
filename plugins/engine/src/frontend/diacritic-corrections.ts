import { ADDRESSED_NOUNS, ADDRESSING, COMMON_FORM_IV, CONSTRUCT_HEADS, IMPERATIVES, NAMED_HEADS, IMPERFECT_VOWEL, INTRANSITIVE, NOT_A_GENITIVE, PREPOSITIONS, TIME_ADVERBS, TIME_HEADS } from './diacritic-corrections-words.js';

/**
 * Corrections of the diacritizer's systematic word errors, the ones a listener hears as another
 * word: an imperative read as a past tense (زوروا → زَوَّرُوا "they forged"), a Form I verb with
 * the wrong middle vowel (تعرف → تَعْرَفُ), the age عُمْر read as the name عُمَر, and tanween on
 * a noun that is the first term of a construct (شَرِكَةٌ Apple, مَدِينَةٍ الرِّيَاضِ).
 *
 * Each rule rests on grammar and a reviewed word list (diacritic-corrections-words.ts), acts only
 * where its context is unambiguous, and leaves a word alone when any of its marks came from the
 * user or from the lexicon.
 */

/** One Arabic word of the diacritizer's output. */
export interface MarkedWord {
  /** The word's letters, without marks. */
  bare: string;
  /** The marks on each letter of `bare` (shadda and/or one vowel; '' for none); rules change these. */
  marks: string[];
  /** Holds marks the user wrote or text the lexicon fixed: never changed. */
  fixed: boolean;
  /** The text between the previous word (or the start) and this word. */
  before: string;
}

const FATHA = '\u064e';
const DAMMA = '\u064f';
const KASRA = '\u0650';
const SUKUN = '\u0652';
const SHADDA = '\u0651';
const TANWEEN_VOWEL: Record<string, string> = { '\u064b': FATHA, '\u064c': DAMMA, '\u064d': KASRA };
const TANWEEN = /[\u064b-\u064d]/u;
const CLAUSE_BREAK = /[.!?؟؛;:،,\n]/u;
const WORDISH = /[\p{L}\p{N}]/u;
const LATIN_NEXT = /^[ \t\u00a0]+[A-Za-z]/u;
const DIGIT_NEXT = /^[ \t\u00a0]+[0-9\u0660-\u0669]/u;
const SPACES_ONLY = /^[ \t\u00a0]+$/u;

/** Letters and marks of a written reading (one mark cluster per letter). */
function parseReading(reading: string): { bare: string; marks: string[] } {
  let bare = '';
  const marks: string[] = [];
  for (const ch of reading) {
    if (/[\u064b-\u0652]/u.test(ch)) marks[marks.length - 1] += ch;
    else {
      bare += ch;
      marks.push('');
    }
  }
  return { bare, marks };
}

/** The vowel (or sukun) of a mark cluster, without shadda. */
const vowelOf = (marks: string) => marks.replace(SHADDA, '');
const withVowel = (marks: string, vowel: string) => (marks.includes(SHADDA) ? SHADDA : '') + vowel;

/**
 * Applies every rule to the words of one text, in place. `tail`: the text after the last word.
 * Returns how many words were changed.
 */
export function correctDiacritics(words: MarkedWord[], tail = ''): number {
  const after = (i: number) => words[i + 1]?.before ?? tail;
  const clause = clauses(words);
  const addressed = new Set<number>();
  // An order no past tense could be (اخلط، ادخلوا) at a clause start: the whole text gives orders
  // (a recipe's steps, a form's instructions), so سخّن، قطّع are orders there too.
  const ordering = words.some((w, i) => !w.fixed && clauseStart(words, i, new Set()) && isOrder(w.bare));
  words.forEach((w, i) => {
    if (ordering || addressesListener(w.bare)) addressed.add(clause[i]!);
  });
  let changed = 0;
  const imperatives = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.fixed) continue;
    const before = w.marks.join('');
    // "حمّل التطبيق واستمتع": after an imperative, a coordinated one needs no clause of its own.
    const coordinated = /^[وف]/u.test(w.bare) && [...imperatives].some((k) => clause[k]! >= clause[i]! - 1);
    if ((coordinated || clauseStart(words, i, imperatives)) && imperative(w, addressed.has(clause[i]!) || coordinated)) {
      imperatives.add(i);
      objectOfImperative(w, words, i);
    }
    else imperfectStem(w, words[i - 1]?.bare ?? '');
    ageNotName(w, words[i - 1]?.bare ?? '', words[i + 1], after(i));
    genitiveAfterPreposition(w, words[i - 1]);
    moodAfterParticle(w, words[i - 1]);
    innaBeforeNoun(w, words[i + 1]);
    nounOfInna(words, i);
    genitiveAfterHead(words, i);
    constructWithoutTanween(w, words[i - 1], words[i + 1], after(i));
    titleBeforeName(w, words[i + 1]);
    noTanween(w);
    if (w.marks.join('') !== before) changed++;
  }
  return changed;
}

/** Clause number of each word: a clause ends at punctuation. */
function clauses(words: MarkedWord[]): number[] {
  let n = 0;
  return words.map((w, i) => (i > 0 && CLAUSE_BREAK.test(w.before) ? ++n : n));
}

function clauseStart(words: MarkedWord[], i: number, imperatives: Set<number>): boolean {
  const b = words[i]!.before;
  if (i === 0) return !WORDISH.test(b);
  if (CLAUSE_BREAK.test(b)) return true;
  if (WORDISH.test(b)) return false;
  const prev = words[i - 1]!.bare;
  // "ادخل رقمك ثم اضغط": a coordinated imperative starts its own clause.
  return prev === 'و' || prev === 'ثم' || prev === 'أو' || imperatives.has(i - 1);
}

function addressesListener(bare: string): boolean {
  const word = bare.replace(/^[وف]/u, '');
  if (ADDRESSING.has(bare) || ADDRESSING.has(word)) return true;
  // "your …" on a noun a customer is told about (حسابك، بطاقتكم، لطلبك)
  const m = /^(?:[بل])?(.+?)(?:ك|كم|كن)$/u.exec(word);
  return !!m && ADDRESSED_NOUNS.has(m[1]!);
}

/** An imperative from the list that no past tense spells (اخلط، زوروا), after an optional و/ف. */
function isOrder(bare: string): boolean {
  const entry = IMPERATIVES[bare] ?? (/^[وف]../u.test(bare) && bare.length >= 4 ? IMPERATIVES[bare.slice(1)] : undefined);
  return !!entry && !entry.past;
}

/**
 * The noun right after a transitive imperative is its object, accusative (اختر طريقةَ الدفع، أضف
 * الملحَ والفلفلَ), and so is a noun joined to it by و: a nominative or genitive ending the model
 * gave becomes fatha (kasra on a sound feminine plural: الخياراتِ). Only definite nouns and nouns in ة (whose accusative needs no alif).
 */
function objectOfImperative(verb: MarkedWord, words: MarkedWord[], i: number): void {
  if (INTRANSITIVE.has(IMPERATIVES[verb.bare] ? verb.bare : verb.bare.slice(1))) return;
  for (let k = i + 1, first = true; k < words.length; k++, first = false) {
    const w = words[k]!;
    if (w.fixed || !SPACES_ONLY.test(w.before)) return;
    const noun = first ? w.bare : /^و(?=ال)/u.test(w.bare) ? w.bare.slice(1) : null;
    if (noun === null || NOT_A_GENITIVE.has(noun) || !(noun.startsWith('ال') || noun.endsWith('ة')) || noun.length < 4) return;
    const last = w.bare.length - 1;
    const mark = w.marks[last] ?? '';
    const vowel = vowelOf(mark);
    // a sound feminine plural's accusative is its kasra (اختر الخياراتِ)
    const accusative = noun.endsWith('ات') ? KASRA : FATHA;
    if (vowel === DAMMA || vowel === KASRA) w.marks[last] = withVowel(mark, accusative);
    else if ((vowel === '\u064c' || vowel === '\u064d') && w.bare.endsWith('ة')) w.marks[last] = withVowel(mark, '\u064b');
    // a construct's second term (طريقةَ الدفعِ) is genitive: only the first noun and its coordinates
    if (!noun.startsWith('ال')) return;
  }
}

/** Sets the marks of `w` from a written reading, after a conjunction و/ف of `clitic` letters. */
function setReading(w: MarkedWord, reading: string, clitic: number): void {
  const r = parseReading(reading);
  for (let k = 0; k < clitic; k++) w.marks[k] = FATHA;
  r.marks.forEach((m, k) => (w.marks[clitic + k] = m));
}

/** A clause-initial imperative from the list (وادخل، فاضغط too). */
function imperative(w: MarkedWord, addressed: boolean): boolean {
  for (const clitic of [0, 1]) {
    // و/ف before a two-letter imperative is more often a root letter (وضع، فخذ، ودع)
    if (clitic && (!/^[وف]/u.test(w.bare) || w.bare.length < 4)) continue;
    const entry = IMPERATIVES[w.bare.slice(clitic)];
    if (!entry || (entry.past && !addressed)) continue;
    setReading(w, entry.reading, clitic);
    return true;
  }
  return false;
}

const IMPERFECT_SUFFIX: Record<string, string | null> = {
  // The vowel the third radical takes before each suffix (null: the mood's, as the model gave it).
  '': null, ون: DAMMA, وا: DAMMA, ين: KASRA, ي: KASRA, ان: FATHA,
  ه: null, ها: null, هم: null, هما: null, ك: null, كم: null, ني: null, نا: null,
};
const FIRST_PERSON_CONTEXT = new Set(['أنا', 'لا', 'لم', 'لن', 'أن', 'كي', 'سوف', 'لكي']);

/**
 * A Form I imperfect (يَفْعَلُ / يَفْعِلُ / يَفْعُلُ) the model read as active Form I but with the
 * wrong middle vowel (تَعْرَفُ, نَشْرُبُ, تَكْتَبُ), or as a Form IV the root hardly has (يُعْرِضُ):
 * the middle vowel is the verb's own. A passive (يُفْعَلُ), a common Form IV (يُخْرِجُ) or another
 * form (a vowel or shadda on the first radical) is left alone.
 */
function imperfectStem(w: MarkedWord, prev: string): void {
  const m = /^([وف]?)([سل]?)([يتنأ])(.{3})(.*)$/u.exec(w.bare);
  if (!m) return;
  const [, conj, particle, person, root, suffix] = m as unknown as [string, string, string, string, string, string];
  const vowel = IMPERFECT_VOWEL[root];
  if (!vowel || !(suffix in IMPERFECT_SUFFIX)) return;
  // أَفْعَلُ is also an elative (أصدق، أقدر): the first person only after a word that wants a verb.
  if (person === 'أ' && !particle && !FIRST_PERSON_CONTEXT.has(prev)) return;
  const at = conj.length + particle.length;
  const [p, c1, c2, c3] = [w.marks[at]!, w.marks[at + 1]!, w.marks[at + 2]!, w.marks[at + 3]!];
  // يُفْعِلُ: a Form IV of its own where that form is common, else a misread Form I (يُعْرِضُ)
  const formIV = p === DAMMA && vowelOf(c2) === KASRA && !COMMON_FORM_IV.has(root);
  if ((p !== FATHA && !formIV) || (c1 !== SUKUN && c1 !== '') || c2.includes(SHADDA) || c3.includes(SHADDA)) return;
  w.marks[at] = FATHA;
  w.marks[at + 2] = { a: FATHA, u: DAMMA, i: KASRA }[vowel];
  w.marks[at + 1] = SUKUN;
  const third = IMPERFECT_SUFFIX[suffix];
  if (third) w.marks[at + 3] = third;
  else if (TANWEEN.test(c3)) w.marks[at + 3] = TANWEEN_VOWEL[c3]!; // a verb never takes tanween
}

const AGE_VERBS = new Set(['بلغ', 'يبلغ', 'تبلغ', 'بلغت', 'تجاوز', 'يتجاوز', 'تجاوزت', 'يناهز', 'ناهز', 'متوسط', 'طول']);
const AGE_NEXT = new Set(['يناهز', 'ناهز', 'يتجاوز', 'يقارب', 'يتراوح']);

/**
 * عمر after a preposition (في عمر، عن عمر، بعمر), after "reached" (بلغ عمر المبنى), or before
 * "nearing" or a number (عن عمر يناهز، بعمر 30) is the noun عُمْر "age"; the name عُمَر is not
 * read there. Elsewhere the model's reading stands (قال عمر، عمر بن الخطاب).
 */
function ageNotName(w: MarkedWord, prev: string, next: MarkedWord | undefined, after: string): void {
  const m = /^([وف]?)(ب?)عمر$/u.exec(w.bare);
  if (!m) return;
  const afterPreposition = m[2] === 'ب' || PREPOSITIONS.has(prev);
  const nextIsNumber = DIGIT_NEXT.test(after) || (!!next && SPACES_ONLY.test(next.before) && AGE_NEXT.has(next.bare));
  if (!afterPreposition && !AGE_VERBS.has(prev) && !nextIsNumber) return;
  if (!afterPreposition && !nextIsNumber && !(next && SPACES_ONLY.test(next.before) && /^ال/u.test(next.bare))) return;
  const at = m[1]!.length + m[2]!.length;
  for (let k = 0; k < at; k++) w.marks[k] = m[1] && k === 0 ? FATHA : KASRA;
  w.marks[at] = DAMMA;
  w.marks[at + 1] = SUKUN;
  // Genitive after a preposition (tanween when no genitive follows), nominative after a verb.
  const construct = DIGIT_NEXT.test(after) || LATIN_NEXT.test(after) || (!!next && SPACES_ONLY.test(next.before) && /^ال/u.test(next.bare));
  w.marks[at + 2] = afterPreposition ? (construct ? KASRA : '\u064d') : DAMMA;
}

/**
 * The first term of a construct takes no tanween: a noun with tanween directly before a Latin-script
 * name (شركةٌ Apple → شركةُ), or after a preposition and directly before a definite noun (في
 * مدينةٍ الرياض → مدينةِ), keeps its case vowel and loses the nunation. Elsewhere a definite word
 * after an indefinite noun often starts the next constituent (the subject after a fronted object,
 * a clause without its comma), so the model's tanween stands. Not before a relative pronoun or a time adverb (الذي، الآن، اليوم; العام،
 * الأسبوع… unless the noun is one of time position: نهايةِ العام), and
 * not the accusative tanween on an alif (أيضًا، يوميًا الساعة…: adverbs, not constructs).
 */
function constructWithoutTanween(w: MarkedWord, prev: MarkedWord | undefined, next: MarkedWord | undefined, after: string): void {
  const last = w.bare.length - 1;
  const mark = w.marks[last] ?? '';
  const t = TANWEEN.exec(mark)?.[0];
  if (!t) return;
  if (t === '\u064b' && !'ةء'.includes(w.bare[last]!)) return;
  const clitic = /^([وف]?)[بل](?!ال)/u.exec(w.bare);
  const governed = (!!clitic && w.marks[clitic[1]!.length] === KASRA) || (!!prev && SPACES_ONLY.test(w.before) && (GENITIVE_AFTER.has(prev.bare) || prev.bare === 'من'));
  const definite = governed && !!next && SPACES_ONLY.test(next.before) && next.bare.length >= 4 && next.bare.startsWith('ال') && !NOT_A_GENITIVE.has(next.bare);
  if (!definite && !LATIN_NEXT.test(after)) return;
  if (definite && TIME_ADVERBS.has(next!.bare) && !TIME_HEADS.has(w.bare.replace(/^(?:[وف]?[بل]?)/u, ''))) return;
  w.marks[last] = withVowel(mark, TANWEEN_VOWEL[t]!);
}

/** Prepositions written as words; مِن only where the model read it so (مَن "who" is no preposition). */
const GENITIVE_AFTER = new Set(['في', 'إلى', 'على', 'عن']);
/** Words a preposition may precede that are built on damma, not declined (من حيثُ، من قبلُ). */
const BUILT_ON_DAMMA = new Set(['حيث', 'قبل', 'بعد', 'منذ', 'مذ']);

/**
 * A noun right after a preposition is genitive: a nominative ending the model gave it (فِي
 * الْمَدِينَةُ، بِالسَّيَّارَةُ) becomes kasra (kasratan for dammatan). Only the nominative is
 * changed: a fatha there is the genitive of a diptote (إِلَى مَدَارِسَ، مِنْ أَحْمَدَ). Words ending
 * in a pronoun suffix or a long vowel are left alone (the suffix carries its own vowel).
 */
function genitiveAfterPreposition(w: MarkedWord, prev: MarkedWord | undefined): void {
  // بِ/لِ + the article, then a stem of three letters or more (not بالغ، وكالة)
  const attached = /^[وف]?(?:بال|لل)[^\s]{3,}$/u.test(w.bare) && !/^[وف]?بالغ/u.test(w.bare);
  const separate = !!prev && SPACES_ONLY.test(w.before) && (GENITIVE_AFTER.has(prev.bare) || (prev.bare === 'من' && prev.marks[0] === KASRA));
  if (!attached && !separate) return;
  if (BUILT_ON_DAMMA.has(w.bare) || /(?:[اىويهك]|هم|كم|هما|كما|هن|كن)$/u.test(w.bare)) return;
  const last = w.bare.length - 1;
  const mark = w.marks[last] ?? '';
  const vowel = vowelOf(mark);
  if (vowel === DAMMA) w.marks[last] = withVowel(mark, KASRA);
  else if (vowel === '\u064c') w.marks[last] = withVowel(mark, '\u064d');
}

/**
 * Words that never take tanween: a definite noun (الكتابُ، بالمدرسةِ), and the diptotes whose
 * pattern shows in their letters and vowels (Wright I §308–309): the broken plurals مَفَاعِل،
 * مَفَاعِيل (مَصَانِعُ، مَشَارِيعُ), فُعَلَاء and أَفْعِلَاء (وُزَرَاءُ، أَصْدِقَاءُ), and فَعْلَاء
 * (صَحْرَاءُ). Their tanween becomes the case vowel; a diptote's genitive is a fatha.
 */
function noTanween(w: MarkedWord): void {
  const last = w.bare.length - 1;
  const mark = w.marks[last] ?? '';
  const t = TANWEEN.exec(mark)?.[0];
  if (!t) return;
  const at = /^[وفبلك]/u.test(w.bare) && /^[\u064e\u0650]$/u.test(vowelOf(w.marks[0] ?? '')) && w.bare.length > 4 ? 1 : 0;
  const stem = w.bare.slice(at);
  const v = w.marks.slice(at).map(vowelOf);
  const article = w.bare.replace(/^[وف]/u, '').replace(/^[بك](?=ال)/u, '');
  // (الف، الاف: ألف، آلاف written without their hamza, no article)
  if (/^(?:ال|لل)/u.test(article) && !/^ال(?:ف|فا|فين|فان|اف)$/u.test(article)) {
    if (!(t === '\u064b' && 'اى'.includes(w.bare[last]!))) w.marks[last] = withVowel(mark, TANWEEN_VOWEL[t]!);
    return;
  }
  // Not a nisba adjective (أَسَاسِيٌّ، عُمَّالِيَّةٌ), nor تَفَاعُل (تَشَابُهٌ, which a kasra would make look
  // like a plural), nor أَفْعَال of a hamza root (أَنْبَاءٌ، أَجْزَاءٍ: not فَعْلَاء).
  if (/[يةى]$/u.test(stem) || mark.includes(SHADDA)) return;
  const diptote =
    (stem.length === 5 && stem[0] !== 'ت' && v[0] === FATHA && v[1] === FATHA && stem[2] === 'ا' && v[3] === KASRA) ||
    (stem.length === 6 && v[0] === FATHA && v[1] === FATHA && stem[2] === 'ا' && v[3] === KASRA && stem[4] === 'ي' && v[4] === '') ||
    (stem.length === 5 && v[0] === DAMMA && v[1] === FATHA && stem[3] === 'ا' && stem[4] === 'ء') ||
    (stem.length === 6 && stem[0] === 'أ' && v[0] === FATHA && v[1] === SUKUN && v[2] === KASRA && stem[4] === 'ا' && stem[5] === 'ء') ||
    (stem.length === 5 && stem[0] !== 'أ' && v[0] === FATHA && v[1] === SUKUN && v[2] === FATHA && stem[3] === 'ا' && stem[4] === 'ء');
  if (diptote) w.marks[last] = withVowel(mark, t === '\u064c' ? DAMMA : FATHA);
}

/** Particles before an imperfect: لن، كي (subjunctive) and لم (jussive); أنْ where the model read it without shadda. */
const SUBJUNCTIVE_AFTER = new Set(['لن', 'كي', 'لكي', 'ولن', 'ولكي']);
const JUSSIVE_AFTER = new Set(['لم', 'ولم', 'فلم']);

/**
 * The mood an imperfect verb takes after its particle: لن/كي/أنْ → subjunctive (لن يكونَ), لم →
 * jussive (لم يكتبْ). Only a verb whose last letter is its third radical is changed (no ون/ين/ان,
 * whose ن the mood drops in writing, no weak final letter: لم يأتِ).
 */
function moodAfterParticle(w: MarkedWord, prev: MarkedWord | undefined): void {
  if (!prev || !SPACES_ONLY.test(w.before) || !/^[يتنأ]/u.test(w.bare) || w.bare.length < 3) return;
  // (a hollow root's ن after its long vowel is a radical: يكون، يبين)
  if (/[اويىء]$/u.test(w.bare) || (/(?:ون|ين|ان)$/u.test(w.bare) && w.bare.length >= 6)) return;
  const last = w.bare.length - 1;
  const mark = w.marks[last] ?? '';
  if (vowelOf(mark) !== DAMMA) return;
  // the model's own reading of the verb: an imperfect's prefix has a short vowel
  if (!/^[\u064e\u064f]$/u.test(vowelOf(w.marks[0] ?? ''))) return;
  const an = (prev.bare === 'أن' || prev.bare === 'وأن') && vowelOf(prev.marks[prev.bare.length - 1] ?? '') === SUKUN && !prev.marks.join('').includes(SHADDA);
  if (SUBJUNCTIVE_AFTER.has(prev.bare) || an) w.marks[last] = withVowel(mark, FATHA);
  else if (JUSSIVE_AFTER.has(prev.bare)) w.marks[last] = mark.includes(SHADDA) ? withVowel(mark, FATHA) : SUKUN;
}

/** إنّ and its sisters as the model read them (with shadda), after a conjunction or لـ/بـ. */
const INNA = /^[وف]?(?:[لب]?[إأ]ن|لكن|كأن)$/u;

/**
 * The noun of إنّ/أنّ/لكنّ is accusative (أنّ الحكومةَ الجديدةَ): a definite noun right after the
 * particle, and the definite adjectives after it, lose the nominative the model gave them.
 */
function nounOfInna(words: MarkedWord[], i: number): void {
  const p = words[i]!;
  if (p.fixed || !INNA.test(p.bare) || !(p.marks[p.bare.length - 1] ?? '').includes(SHADDA)) return;
  for (let k = i + 1; k < words.length; k++) {
    const w = words[k]!;
    if (w.fixed || !SPACES_ONLY.test(w.before) || !w.bare.startsWith('ال') || w.bare.length < 4 || NOT_A_GENITIVE.has(w.bare)) return;
    const last = w.bare.length - 1;
    const mark = w.marks[last] ?? '';
    const accusative = w.bare.endsWith('ات') ? KASRA : FATHA;
    if (vowelOf(mark) === accusative) continue; // read right: the adjectives after it follow
    if (vowelOf(mark) !== DAMMA || /(?:ون|ان)$/u.test(w.bare)) return;
    w.marks[last] = withVowel(mark, accusative);
  }
}

/** أنّ/إنّ written without shadda, after a conjunction or بـ/لـ; the reading each prefix letter takes. */
const INNA_BARE = /^([وف]?)([بل]?)([أإ])ن$/u;

/**
 * أنْ and إنْ are followed by a verb (أنْ يكتبَ، إنْ كان); before a definite noun the particle is
 * أنّ/إنّ (أنّ الحكومةَ، إنّ الوضعَ; Wright II §7, Ryding §18.1): a definite noun right after it
 * gets the shadda and fatha the model left out, and nounOfInna then makes the noun accusative.
 */
function innaBeforeNoun(w: MarkedWord, next: MarkedWord | undefined): void {
  const m = INNA_BARE.exec(w.bare);
  if (!m || !next || next.fixed || !SPACES_ONLY.test(next.before) || !next.bare.startsWith('ال') || next.bare.length < 4) return;
  const last = w.bare.length - 1;
  if ((w.marks[last] ?? '').includes(SHADDA)) return;
  let k = 0;
  if (m[1]) w.marks[k++] = FATHA;
  if (m[2]) w.marks[k++] = KASRA;
  w.marks[k] = m[3] === 'أ' ? FATHA : KASRA;
  w.marks[last] = SHADDA + FATHA;
}

/** A definite nisba adjective (الشرقيّة، الأمريكيّ): it agrees with the noun before it. */
const NISBA = /^(?:ال)..+ي(?:ة)?$/u;

/**
 * The second term of a construct is genitive: a definite noun right after a preposition (في،
 * من، إلى، على، عن، بـ، لـ) or a noun that heads a construct as an adverb or quantifier (خلال، بعد،
 * قبل، بين، حول، مثل، غير، كل، بعض، جميع…; Ryding §8.1, §16), and the nisba adjectives after it,
 * end in kasra whatever vowel the model gave them (a definite diptote's genitive is kasra too).
 * The head must carry the marks of that reading (قَبْلَ, not the verb قَبِلَ; مِثْلَ, not مَثَّلَ).
 * Sound plurals and duals (ـون، ـين، ـان) keep their endings.
 */
function genitiveAfterHead(words: MarkedWord[], i: number): void {
  const head = words[i]!;
  if (head.fixed) return;
  // بِـ/لِـ + the article: the word is itself the genitive (بالمدينةِ، للحكومةِ)
  const attached = /^[وف]?(?:بال|لل)..../u.test(head.bare) && !/^[وف]?بالغ/u.test(head.bare) && /^\u0650$/u.test(head.marks[/^[وف]/u.test(head.bare) ? 1 : 0] ?? '');
  if (!attached && !governsGenitive(head)) return;
  for (let k = attached ? i : i + 1, first = true; k < words.length; k++, first = false) {
    const w = words[k]!;
    if (k > i && (w.fixed || !SPACES_ONLY.test(w.before))) return;
    const noun = k === i ? w.bare.replace(/^[وف]?[بل]/u, '') : w.bare;
    if (!/^ال|^ل/u.test(noun) || noun.length < 4 || NOT_A_GENITIVE.has(noun)) return;
    if (k > i && !noun.startsWith('ال')) return;
    if (!first && !NISBA.test(noun)) return;
    const last = w.bare.length - 1;
    const mark = w.marks[last] ?? '';
    const vowel = vowelOf(mark);
    // ـونَ، ـينَ: a sound plural's fatha (its genitive is ـينَ); a dual's ـانِ is already kasra
    if (/[اىوه]$/u.test(noun) || (noun.endsWith('ي') && !mark.includes(SHADDA))) return;
    if (vowel === DAMMA || (vowel === FATHA && !/(?:ون|ين)$/u.test(noun))) w.marks[last] = withVowel(mark, KASRA);
    else if (vowel !== KASRA) return;
  }
}

/** A preposition, or a construct head whose marks are those of its reading in CONSTRUCT_HEADS. */
function governsGenitive(head: MarkedWord): boolean {
  if (GENITIVE_AFTER.has(head.bare) || (head.bare === 'من' && head.marks[0] === KASRA)) return true;
  const clitic = /^[وف]?[بل]?/u.exec(head.bare)![0].length;
  for (const cut of new Set([0, clitic])) {
    const reading = CONSTRUCT_HEADS[head.bare.slice(cut)];
    if (!reading) continue;
    const r = parseReading(reading);
    // every letter's vowel and shadda as the reading has them (the last letter's case aside)
    const same = r.marks.slice(0, -1).every((mk, k) => {
      const got = head.marks[cut + k] ?? '';
      return vowelOf(got).replace(SUKUN, '') === vowelOf(mk).replace(SUKUN, '') && got.includes(SHADDA) === mk.includes(SHADDA);
    });
    if (same) return true;
  }
  return false;
}

/** Words after a title or place noun that are no name: particles and verbs' companions. */
const NOT_A_NAME = new Set(['من', 'في', 'على', 'عن', 'إلى', 'مع', 'لم', 'لن', 'لا', 'قد', 'كان', 'كانت', 'ما', 'أو', 'ثم', 'حتى', 'منذ', 'بعد', 'قبل', 'أن', 'إن', 'أي', 'كل', 'هو', 'هي', 'ذات', 'أخرى', 'آخر', 'واحد', 'واحدة']);

/**
 * A title or a place noun (ولاية، محافظة، شركة، حاكم، جبل…) before a proper name is the first term
 * of a construct (ولايةُ أيوا، حاكمِ فلوريدا، جبلِ أوتاكي; Ryding §8.1): it takes no tanween. The
 * next word counts as a name when it is written without the article, the model gave it no tanween
 * (an agreeing adjective has it: شركةٌ كبيرةٌ), it is no nisba adjective (ـي، ـية), no particle, and
 * it does not start a relative clause: no imperfect verb's prefix (شركةٌ تعمل), no pronoun suffix
 * (منظمةٌ مقرُّها), no three-letter past verb (منطقةٌ لَجَأَ).
 */
function titleBeforeName(w: MarkedWord, next: MarkedWord | undefined): void {
  const last = w.bare.length - 1;
  const mark = w.marks[last] ?? '';
  const t = TANWEEN.exec(mark)?.[0];
  if (!t || !next || !SPACES_ONLY.test(next.before) || next.bare.length < 2) return;
  if (!NAMED_HEADS.has(w.bare.replace(/^[وف]?[بل]?/u, '')) && !NAMED_HEADS.has(w.bare)) return;
  const n = next.bare;
  if (n.startsWith('ال') || /^[يتن]/u.test(n) || /(?:ي|ية|ى)$/u.test(n) || NOT_A_NAME.has(n) || NOT_A_NAME.has(n.replace(/^[وف]/u, ''))) return;
  if (next.marks.some((m) => TANWEEN.test(m))) return;
  // a relative clause: a noun with its pronoun (منظمةٌ مقرُّها) or a past verb (منطقةٌ لَجَأَ إليها)
  if (/(?:ها|هم|هما|هن)$/u.test(n) || (n.length === 3 && vowelOf(next.marks[0] ?? '') === FATHA && vowelOf(next.marks[1] ?? '') === FATHA)) return;
  if (t === '\u064b' && !'ةء'.includes(w.bare[last]!)) return;
  w.marks[last] = withVowel(mark, TANWEEN_VOWEL[t]!);
}
