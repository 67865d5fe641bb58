// UI strings in English and Chinese (strings-en.js, strings-zh.js), chosen by ?lang=. Log lines
// are never translated: they are RocketMQ's own.
import en from "./strings-en.js";
import zh from "./strings-zh.js";

const STRINGS = { en, zh };

// The page's language, set once by main.js from ?lang= before anything is drawn (so that Node
// can import this module and everything below it).
export let lang = "en";

export function setLanguage(requested) {
  lang = requested && requested.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function t(key, vars) {
  let s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  if (vars) s = s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined ? `{${k}}` : String(vars[k])));
  return s;
}

// A built-in scenario's title in the page's language, else its own (`scenarios`: the built-ins).
export function scenarioTitle(scenarios, id) {
  const key = `scenario_${id}`;
  const title = t(key);
  if (title !== key) return title;
  const s = scenarios.find((x) => x.id === id);
  return s ? s.title : id;
}

// Picks the current language from an {en, zh} pair.
export function pick(pair) {
  return typeof pair === "string" ? pair : (pair[lang] ?? pair.en);
}

// `link`: the element that switches to the other language.
export function applyStatic(root, link) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  // Symbol buttons: the symbol is decoration, the words are the name (no label/content mismatch).
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    const symbol = el.dataset.symbol || el.textContent.trim();
    el.dataset.symbol = symbol;
    el.title = t(el.dataset.i18nLabel);
    el.replaceChildren();
    const s = document.createElement("span");
    s.setAttribute("aria-hidden", "true");
    s.textContent = symbol;
    const name = document.createElement("span");
    name.className = "visually-hidden";
    name.textContent = t(el.dataset.i18nLabel);
    el.append(s, name);
  }
  document.title = t("title");
  if (link) {
    const u = new URL(location.href);
    u.searchParams.set("lang", lang === "zh" ? "en" : "zh");
    link.href = u.pathname + u.search + u.hash;
    link.textContent = lang === "zh" ? "English" : "中文";
    link.lang = lang === "zh" ? "en" : "zh";
  }
}
