// The web client's modules under Node for the unit tests (clients/web has no
// package.json: the server serves it as is). loadWeb() imports a module from its text
// with its import of i18n.js pointed at the one copy of clients/web/i18n.js, whose
// catalogue english() fills with English (i18n/lang/en/*.json), so that the sentences
// the modules write are the English ones the tests compare.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const web = fileURLToPath(new URL('../../clients/web/', import.meta.url));
const english = fileURLToPath(new URL('../../i18n/lang/en/', import.meta.url));
const i18nUrl = pathToFileURL(path.join(web, 'i18n.js')).href;

/** Every English message (i18n/lang/en/*.json, merged). */
export function englishCatalogue() {
  const out = {};
  for (const f of readdirSync(english).filter((n) => n.endsWith('.json'))) Object.assign(out, JSON.parse(readFileSync(path.join(english, f), 'utf8')));
  return out;
}

/** Puts clients/web/i18n.js (the copy loadWeb's modules use) in English. */
export async function useEnglish() {
  const i18n = await import(i18nUrl);
  const messages = englishCatalogue();
  i18n.useCatalogues('en', messages, messages);
  return i18n;
}

/**
 * Imports clients/web/`file` from its text; `edit(source)` may change it first (leave
 * out an import a test does not need). Its i18n.js is the shared one, in English.
 */
export async function loadWeb(file, edit = (s) => s) {
  await useEnglish();
  const source = edit(readFileSync(path.join(web, file), 'utf8')).replace(/from '\.\/i18n\.js';/g, `from '${i18nUrl}';`);
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}
