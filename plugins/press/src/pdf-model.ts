import { createHash } from 'node:crypto';
import type { TextLine } from './credit-lines.js';

// What PDF extraction yields and what it is given: shared by its parts (document, placements, page
// images, rendering, text) and by its callers.

/** A box on the page in PDF points, origin at the top-left corner of the page (y downwards). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ExtractedImage {
  /** MD5 of the bytes handed to matching: the same picture repeated anywhere shares it. */
  md5: string;
  /** The image as printed: the raw JPEG stream when it could be taken as is, else a PNG of the decoded pixels. */
  bytes: Buffer;
  format: 'jpeg' | 'png';
  width: number;
  height: number;
  /** Where it is placed on the page (one box per placement). */
  boxes: Box[];
  /** Text printed along the image that reads as a credit line, if any. */
  credit: string | null;
  /** How the credit was read: the page's text layer or OCR. */
  creditSource: 'text' | 'ocr' | null;
  /** True when the pixels came from pdf.js's decoder (CMYK, indexed, masked ...), false for raw JPEG. */
  decoded: boolean;
  /** True for a region of the rendered page (a picture printed as several tiles), not an embedded image. */
  rendered?: boolean;
}

export interface ExtractedPage {
  pageNumber: number;
  /** Page size in points. */
  width: number;
  height: number;
  /** Whether the page has a text layer (otherwise it is a scan: OCR applies); pages without images are not read and count as text. */
  hasText: boolean;
  images: ExtractedImage[];
  /** Text lines of the page (points, top-left origin), from the text layer or OCR. */
  lines: TextLine[];
}

export interface ExtractionLimits {
  /** Documents with more pages are refused. */
  maxPages: number;
  /** An image declaring more pixels than this is refused (and pdf.js never decodes one). */
  maxImagePixels: number;
  /** Images smaller than this on either side are ignored (rules, bullets, logos' specks). */
  minImageSide: number;
  /** Wall-clock limit for the whole document, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = { maxPages: 2000, maxImagePixels: 40_000_000, minImageSide: 48, timeoutMs: 15 * 60_000 };

export interface OcrEngine {
  /** Text lines of an image, in the image's pixel coordinates; `angle` (radians) for lines read rotated. */
  lines(image: Buffer): Promise<{ text: string; x: number; y: number; width: number; height: number; angle?: number }[]>;
}

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
