export * from "./pdf-extraction.js";
