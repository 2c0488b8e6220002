export * from "./pdf-extraction.js";
export * from "./ocr.js";
