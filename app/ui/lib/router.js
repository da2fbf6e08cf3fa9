// Hash routes (#/keuken, #/vloer?tafel=...): screens are addressable and the back button works.
import { useEffect, useState } from './html.js';

/** @returns {{ path: string, query: URLSearchParams }} */
export function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, q] = raw.split('?');
  return { path: path || '/', query: new URLSearchParams(q ?? '') };
}

export function useRoute() {
  const [route, setRoute] = useState(parseHash());
  useEffect(() => {
    const on = () => setRoute(parseHash());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** @param {string} to e.g. '/vloer' or '/bestellen?tafel=...' */
export const go = (to) => {
  location.hash = `#${to}`;
};
