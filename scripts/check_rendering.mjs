// Read TeX snippets (JSON lines {"file","display","tex"}) on stdin; print those MathJax flags.
import {mathjax} from 'mathjax-full/js/mathjax.js';
import {TeX} from 'mathjax-full/js/input/tex.js';
import {liteAdaptor} from 'mathjax-full/js/adaptors/liteAdaptor.js';
import {RegisterHTMLHandler} from 'mathjax-full/js/handlers/html.js';
import 'mathjax-full/js/input/tex/AllPackages.js';  // registers the packages named below
import readline from 'readline';
const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
// The base and AMS packages only: what every code host enables, and undefined macros are errors.
const tex = new TeX({packages: ['base', 'ams', 'newcommand', 'boldsymbol'], formatError: (jax, err) => { throw err; }});
const doc = mathjax.document('', {InputJax: tex});
const rl = readline.createInterface({input: process.stdin});
let n = 0, bad = 0;
for await (const line of rl) {
  const item = JSON.parse(line); n++;
  try { doc.convert(item.tex, {display: item.display}); }
  catch (e) { bad++; console.log(`${item.file}: ${e.message}: ${item.tex.slice(0, 120)}`); }
}
console.log(`${n} formulas, ${bad} MathJax errors`);
