import { noticeTexts, type NoticeLang, type NoticeType } from './notice-texts.js';

/** Everything a notice names, kept with it (what was sent is what the API shows afterwards). */
export interface NoticeFacts {
  type: NoticeType;
  lang: NoticeLang;
  date: string;
  case: { id: string; title: string; site: string | null };
  recipient: { name: string | null; email: string | null };
  rights_holder: { name: string; email: string; address: string | null; phone: string | null };
  signer: string;
  works: { media_id: string; path: string; registered: string }[];
  copies: { match_id: string; page_url: string | null; image_url: string | null; first_seen: string; last_seen: string; evidence: { pack_id: string; sha256: string; captured: string | null }[] }[];
  explanation: string | null;
}

export interface Paragraph {
  text: string;
  /** A list item (drawn with a bullet). */
  bullet?: boolean;
  /** Continuation lines of a list item. */
  indent?: boolean;
  /** Copied as is (URLs): broken anywhere when too long for a line, never at spaces only. */
  mono?: boolean;
}

export interface NoticeDocument {
  title: string;
  subtitle: string;
  header: [string, string][];
  sections: { heading: string; paragraphs: Paragraph[] }[];
}

const day = (iso: string) => iso.slice(0, 10);
const minute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The notice as sections, from its facts; the text and the PDF are both drawn from this. */
export function noticeDocument(f: NoticeFacts): NoticeDocument {
  const t = noticeTexts(f.lang);
  const holder = f.rights_holder;
  const works = f.works.map((w) => ({ text: t.workLine(w.path, day(w.registered), w.media_id), bullet: true }));
  const copies: Paragraph[] = [];
  for (const c of f.copies) {
    const lines: Paragraph[] = [];
    if (c.page_url) lines.push({ text: `${t.page}: ${c.page_url}`, mono: true });
    if (c.image_url) lines.push({ text: `${t.image}: ${c.image_url}`, mono: true });
    lines.push({ text: t.seen(minute(c.first_seen), minute(c.last_seen)) });
    if (c.evidence.length === 0) lines.push({ text: t.noPack });
    for (const p of c.evidence) lines.push({ text: t.pack(p.pack_id, p.sha256, p.captured ? minute(p.captured) : null), mono: true });
    lines[0]!.bullet = true;
    for (const l of lines.slice(1)) l.indent = true;
    copies.push(...lines);
  }
  if (f.copies.some((c) => c.evidence.length)) copies.push({ text: t.evidenceNote });
  const contact: Paragraph[] = [
    { text: `${t.name}: ${holder.name}` },
    ...(holder.address ? [{ text: `${t.address}: ${holder.address}` }] : []),
    ...(holder.phone ? [{ text: `${t.phone}: ${holder.phone}` }] : []),
    { text: `${t.email}: ${holder.email}` },
  ];
  const sections: { heading: string; paragraphs: Paragraph[] }[] = [
    { heading: t.works, paragraphs: works },
    { heading: t.copies[f.type], paragraphs: copies },
  ];
  if (f.type === 'dsa') {
    sections.push(
      { heading: t.explanation, paragraphs: [{ text: f.explanation ?? t.explanationDefault(holder.name) }] },
      { heading: t.contact, paragraphs: contact },
      { heading: t.dsaStatement, paragraphs: [{ text: t.dsaStatementText }] },
    );
  } else {
    if (f.explanation) sections.push({ heading: t.explanation, paragraphs: [{ text: f.explanation }] });
    sections.push(
      { heading: t.contact, paragraphs: contact },
      { heading: t.goodFaith, paragraphs: [{ text: t.goodFaithText }] },
      { heading: t.accuracy, paragraphs: [{ text: t.accuracyText }] },
      { heading: t.authority, paragraphs: [{ text: t.authorityText(holder.name, f.signer) }] },
    );
  }
  sections.push({ heading: t.signature, paragraphs: [{ text: t.signed(f.signer, day(f.date)) }] });
  const recipient = [f.recipient.name, f.recipient.email].filter(Boolean).join(', ') || t.toDefault(f.case.site);
  return {
    title: t.title[f.type],
    subtitle: t.subtitle[f.type],
    header: [
      [t.date, day(f.date)],
      [t.to, recipient],
      [t.from, `${holder.name} <${holder.email}>`],
      [t.caseRef, `${f.case.title} (Filigrane case ${f.case.id})`],
    ],
    sections: sections.map((s, i) => ({ heading: `${i + 1}. ${s.heading}`, paragraphs: s.paragraphs })),
  };
}

/** The notice as plain text (UTF-8): the mail's body and the `.txt` download. */
export function noticeText(doc: NoticeDocument): string {
  const out = [doc.title.toUpperCase(), doc.subtitle, '', ...doc.header.map(([k, v]) => `${k}: ${v}`)];
  for (const s of doc.sections) {
    out.push('', s.heading);
    for (const p of s.paragraphs) out.push(p.bullet ? `- ${p.text}` : p.indent ? `  ${p.text}` : p.text);
  }
  return `${out.join('\n')}\n`;
}
