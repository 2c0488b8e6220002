import { Parser } from 'htmlparser2';
import { canonicalUrl, MAX_URL_LENGTH } from './crawl-url.js';

export interface PageMeta {
  title?: string;
  headline?: string;
  description?: string;
  author?: string;
  type?: 'article' | 'web';
  datePublished?: Date;
  dateModified?: Date;
}

/** Everything a crawl takes from one HTML page. */
export interface ExtractedPage {
  links: string[];
  /** Links over MAX_URL_LENGTH (the first few, up to 16 KiB each): not followed, but logged (generated URLs, a crawler trap). */
  longLinks: string[];
  /** Image URLs with where they were found (img, srcset, picture, og:image, link, style). */
  images: { url: string; via: string }[];
  videos: { url: string; via: string }[];
  documents: { url: string; via: string }[];
  meta: PageMeta;
  /** <meta name="robots" content="nofollow">: links are not followed. */
  nofollow: boolean;
}

const IMAGE_EXT = /\.(jpe?g|png|gif|webp|avif|bmp|tiff?)$/i;
const VIDEO_EXT = /\.(mp4|m4v|mov|webm|ogv|mkv|avi|3gp|3g2|mj2)$/i;
const DOCUMENT_EXT = /\.pdf$/i;
const BACKGROUND_URL = /background(?:-image)?\s*:[^;]*?url\(\s*(['"]?)([^'")]+)\1\s*\)/gi;
const MAX_LINKS_PER_PAGE = 5000;
/** Over-long links a page reports, and the longest read at all (beyond, an attribute is garbage, dropped). */
const MAX_LONG_LINKS = 20;
const MAX_LONG_LINK = 16 * 1024;
const MAX_JSON_LD = 256 * 1024;
const MAX_STYLE = 256 * 1024;
/** Lazy-loading scripts keep the real image in these until the reader scrolls (lazysizes, WordPress, jQuery lazyload). */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original'] as const;
const LAZY_SRCSET = ['data-srcset', 'data-lazy-srcset'] as const;

export function pathExtension(url: string): 'image' | 'video' | 'document' | null {
  const path = new URL(url).pathname;
  if (IMAGE_EXT.test(path)) return 'image';
  if (VIDEO_EXT.test(path)) return 'video';
  if (DOCUMENT_EXT.test(path)) return 'document';
  return null;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';

/**
 * srcset candidates as the HTML standard parses them: a URL runs to the next whitespace (so it may
 * hold commas, as image CDNs' `w_400,c_fill` do) minus trailing commas; its descriptors run to the
 * next comma outside parentheses, so minified `a.jpg 1x,b.jpg 2x` is two candidates.
 */
export function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && (isSpace(srcset[i]) || srcset[i] === ',')) i++;
    const start = i;
    while (i < srcset.length && !isSpace(srcset[i])) i++;
    let url = srcset.slice(start, i);
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      for (let depth = 0; i < srcset.length && (srcset[i] !== ',' || depth > 0); i++) {
        if (srcset[i] === '(') depth++;
        else if (srcset[i] === ')') depth = Math.max(0, depth - 1);
      }
    }
    if (url !== '') urls.push(url);
  }
  return urls;
}

/** The page a `<meta http-equiv=refresh content="0; url=...">` sends readers to, or undefined. */
function refreshTarget(content: string | undefined): string | undefined {
  const m = /^\s*\d*(?:\.\d*)?\s*[;,]\s*(?:url\s*=\s*)?(['"]?)(.+?)\1\s*$/i.exec(content ?? '');
  return m?.[2];
}

/**
 * Parses an HTML page with htmlparser2 (streaming and tolerant of malformed markup) and returns
 * its links, images, videos, documents and metadata (meta tags, OpenGraph, JSON-LD).
 */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  let base = pageUrl;
  const links = new Set<string>();
  const longLinks: string[] = [];
  const images = new Map<string, string>();
  const videos = new Map<string, string>();
  const documents = new Map<string, string>();
  const meta: Record<string, string> = {};
  const jsonLd: string[] = [];
  let nofollow = false;
  let inTitle = false;
  let title = '';
  let inJsonLd = false;
  let inStyle = false;
  let styleText = '';
  let inVideo = 0;
  let jsonText = '';

  const abs = (raw: string | undefined) => (raw ? canonicalUrl(raw, base) : null);
  const add = (map: Map<string, string>, raw: string | undefined, via: string) => {
    const url = abs(raw);
    if (url && !map.has(url) && map.size < MAX_LINKS_PER_PAGE) map.set(url, via);
  };
  const addStyle = (style: string | undefined) => {
    if (!style) return;
    for (const m of style.matchAll(BACKGROUND_URL)) add(images, m[2], 'style');
  };
  const addLink = (raw: string | undefined, via: string) => {
    const url = abs(raw);
    if (!url) {
      const long = raw && raw.length > 0 && longLinks.length < MAX_LONG_LINKS ? canonicalUrl(raw, base, MAX_LONG_LINK) : null;
      if (long && long.length > MAX_URL_LENGTH && pathExtension(long) === null) longLinks.push(long);
      return;
    }
    const kind = pathExtension(url);
    if (kind === 'image') add(images, url, via);
    else if (kind === 'video') add(videos, url, via);
    else if (kind === 'document') add(documents, url, via);
    else if (links.size < MAX_LINKS_PER_PAGE) links.add(url);
  };

  const parser = new Parser(
    {
      onopentag(name, a) {
        addStyle(a.style);
        switch (name) {
          case 'base':
            if (a.href) base = canonicalUrl(a.href, pageUrl) ?? base;
            break;
          case 'a':
          case 'area':
            if (!/\bnofollow\b/i.test(a.rel ?? '')) addLink(a.href, 'link');
            break;
          case 'iframe':
          case 'frame':
            addLink(a.src, 'frame');
            break;
          case 'img':
            add(images, a.src, 'img');
            for (const lazy of LAZY_SRC) if (a[lazy]) add(images, a[lazy], 'img');
            for (const attr of ['srcset', ...LAZY_SRCSET]) for (const u of srcsetUrls(a[attr] ?? '')) add(images, u, 'srcset');
            break;
          case 'source':
            if (inVideo > 0) add(videos, a.src, 'video');
            else if (a.srcset || a['data-srcset']) for (const attr of ['srcset', 'data-srcset']) for (const u of srcsetUrls(a[attr] ?? '')) add(images, u, 'picture');
            else if (a.src && (a.type ?? '').startsWith('video/')) add(videos, a.src, 'video');
            break;
          case 'video':
            inVideo++;
            add(videos, a.src, 'video');
            if (a.poster) add(images, a.poster, 'poster');
            break;
          case 'embed':
          case 'object': {
            const src = a.src ?? a.data;
            if (src) addLink(src, name);
            break;
          }
          case 'meta': {
            if ((a['http-equiv'] ?? '').toLowerCase() === 'refresh') addLink(refreshTarget(a.content), 'refresh');
            const key = (a.property ?? a.name ?? a.itemprop ?? '').toLowerCase();
            const content = a.content;
            if (!key || content === undefined) break;
            if (key === 'og:image' || key === 'og:image:url' || key === 'og:image:secure_url' || key === 'twitter:image' || key === 'twitter:image:src') {
              add(images, content, key.startsWith('og') ? 'og:image' : 'twitter:image');
            } else if (key === 'robots' && /\b(nofollow|none)\b/i.test(content)) {
              nofollow = true;
            } else if (!(key in meta)) {
              meta[key] = content.trim();
            }
            break;
          }
          case 'link':
            if (/\b(image_src)\b/i.test(a.rel ?? '')) add(images, a.href, 'link');
            break;
          case 'title':
            inTitle = true;
            break;
          case 'style':
            inStyle = true;
            styleText = '';
            break;
          case 'script':
            inJsonLd = (a.type ?? '').toLowerCase() === 'application/ld+json';
            jsonText = '';
            break;
        }
      },
      ontext(text) {
        if (inTitle && title.length < 1000) title += text;
        if (inJsonLd && jsonText.length < MAX_JSON_LD) jsonText += text;
        if (inStyle && styleText.length < MAX_STYLE) styleText += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (name === 'style' && inStyle) {
          addStyle(styleText); // a page's own <style> block: hero and banner backgrounds
          inStyle = false;
        }
        if (name === 'video' && inVideo > 0) inVideo--;
        if (name === 'script' && inJsonLd) {
          jsonLd.push(jsonText);
          inJsonLd = false;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  return {
    links: [...links],
    longLinks,
    images: [...images].map(([url, via]) => ({ url, via })),
    videos: [...videos].map(([url, via]) => ({ url, via })),
    documents: [...documents].map(([url, via]) => ({ url, via })),
    meta: pageMeta(meta, title.trim(), jsonLd),
    nofollow,
  };
}

const ARTICLE_TYPES = /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle)$/;

interface LdNode {
  '@type'?: string | string[];
  '@graph'?: LdNode[];
  headline?: string;
  name?: string;
  description?: string;
  author?: unknown;
  datePublished?: string;
  dateModified?: string;
}

function ldArticle(blocks: string[]): LdNode | null {
  for (const block of blocks) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(block);
    } catch {
      continue; // malformed JSON-LD is common; the meta tags still count
    }
    const nodes: LdNode[] = [];
    const visit = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') {
        nodes.push(v as LdNode);
        if (Array.isArray((v as LdNode)['@graph'])) (v as LdNode)['@graph']!.forEach(visit);
      }
    };
    visit(parsed);
    const article = nodes.find((n) => [n['@type']].flat().some((t) => typeof t === 'string' && ARTICLE_TYPES.test(t)));
    if (article) return article;
  }
  return null;
}

function authorName(author: unknown): string | undefined {
  const first = Array.isArray(author) ? author[0] : author;
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && typeof (first as { name?: unknown }).name === 'string') return (first as { name: string }).name;
  return undefined;
}

function date(raw: string | undefined): Date | undefined {
  if (!raw) return undefined;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const text = (s: string | undefined, max = 1000) => (s && s.trim() ? s.trim().slice(0, max) : undefined);

/** JSON-LD first (the richest and most deliberate), then OpenGraph / article:*, then plain meta tags and <title>. */
function pageMeta(meta: Record<string, string>, title: string, jsonLd: string[]): PageMeta {
  const ld = ldArticle(jsonLd);
  const isArticle = ld !== null || (meta['og:type'] ?? '').toLowerCase() === 'article';
  return {
    title: text(title),
    headline: text(ld?.headline ?? meta['og:title'] ?? meta['twitter:title'] ?? title),
    description: text(ld?.description ?? meta['og:description'] ?? meta['description'] ?? meta['twitter:description'], 4000),
    author: text(authorName(ld?.author) ?? meta['author'] ?? meta['article:author'] ?? meta['dc.creator']),
    type: isArticle ? 'article' : 'web',
    datePublished: isArticle ? date(ld?.datePublished ?? meta['article:published_time'] ?? meta['date'] ?? meta['dc.date']) : undefined,
    dateModified: isArticle ? date(ld?.dateModified ?? meta['article:modified_time'] ?? meta['og:updated_time']) : undefined,
  };
}
