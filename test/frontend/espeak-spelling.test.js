// Diacritized Arabic respelled where espeak-ng's Arabic rules misread it (sawt-mini), checked on
// espeak-ng's own phonemes.
import t from 'tap';
import { phonemize } from '@sawt/native';
import { spellForEspeak } from '../../plugins/engine/dist/frontend/espeak-spelling.js';

const espeak = async (text) => phonemize(await spellForEspeak(text), 'ar', 'espeak');

t.test('the plural و\'s alif is silent', async (t) => {
  t.equal(await spellForEspeak('تَأَخَّرُوا عَنِ'), 'تَأَخَّرُو عَنِ');
  t.notMatch(await espeak('تَأَخَّرُوا'), /u:,?a:/u, 'no a: after u:');
  t.equal(await spellForEspeak('دَعَوَا'), 'دَعَوَا', 'the dual keeps its alif');
});

t.test('the unwritten long ā of هذا، ذلك، لكن, also after clitics', async (t) => {
  t.match(await espeak('هَذَا'), /h'?a:D/u);
  t.match(await espeak('وَهَذَا'), /ha:D/u);
  t.match(await espeak('لِذَلِكَ'), /D,?a:l/u);
  t.match(await espeak('وَلَكِنْ'), /la:k/u);
  t.equal(await spellForEspeak('هَذَيَانٌ'), 'هَذَيَانٌ', 'other words untouched');
});

t.test('the article after بِ/كَ has no vowel of its own', async (t) => {
  t.match(await espeak('بِالْكِتَابِ'), /^bilk/u);
  t.equal(await spellForEspeak('[[bi,a:l]] بِالْقَلَمِ'), '[[bi,a:l]] بِلْقَلَمِ', 'raw spans untouched');
});

t.test('the article joined to hamzat al-wasl: al-iqtiṣād, not al-a:qtiṣād', async (t) => {
  t.match(await espeak('الِاقْتِصَادُ'), /^aliqt/u);
  t.match(await espeak('وَالِاسْتِثْمَارِ'), /^w,?alist/u);
  t.match(await espeak('بِالِاقْتِصَادِ'), /^bil,?iqt/u);
});
