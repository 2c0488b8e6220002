// PDF extraction, in parts: the document (pdf-document.ts), placements (pdf-placements.ts), page
// images (pdf-page-images.ts), rendering of tiled pictures (pdf-rendering.ts) and text (pdf-text.ts).
export * from './pdf-model.js';
export { extractPdf, type ExtractOptions } from './pdf-document.js';
export { tiledRegions } from './pdf-rendering.js';
export { DocumentError } from './document-error.js';
export { extractPdfInWorker } from './pdf-extraction-runner.js';
