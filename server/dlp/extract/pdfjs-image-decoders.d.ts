// The JPEG decoder of pdf.js (pdfjs-dist's image_decoders entry), which ships no types for it.
declare module "pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs" {
  export class JpegImage {
    width: number;
    height: number;
    parse(data: Uint8Array): void;
    getData(options: { width: number; height: number; forceRGB?: boolean; isSourcePDF?: boolean }): Uint8ClampedArray;
  }
}
