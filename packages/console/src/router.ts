import { useEffect, useState } from 'preact/hooks';

/** Hash routes (`#/matches/12?site=x`): the server serves one page at `/`; every other path stays the API's. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

/** A typed or pasted address may hold a stray `%` (`#/cases/%`): kept as typed rather than failing the whole page. */
const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const parse = (): Route => {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = raw.split('?');
  return { path: path.split('/').filter(Boolean).map(decodeSegment), query: new URLSearchParams(query) };
};

export function useRoute(): Route {
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const href = (path: string[], query?: Record<string, string | undefined>) => {
  const q = new URLSearchParams(Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  return `#/${path.map(encodeURIComponent).join('/')}${q.size ? `?${q}` : ''}`;
};

export const go = (path: string[], query?: Record<string, string | undefined>) => {
  location.hash = href(path, query);
};
