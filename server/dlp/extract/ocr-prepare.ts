// A picture made readable before OCR, as every OCR pipeline does for small print and low contrast:
// greyscale, scaled up until a line of text is tall enough for the recognizer (tesseract reads
// best with capitals of 20-30 pixels), contrast stretched between the darkest and lightest
// percentile and thresholded (Otsu). A 30-pixel-high strip of grey text on white, which a stock
// tesseract reads exactly, came back empty through tesseract.js at its own size.
// Pure JavaScript: PNG through node:zlib (here), JPEG through pdf.js's decoder (pdfjs-dist's
// image_decoders, the one officeparser already runs), and out again as an 8-bit greyscale PNG.
import { deflateSync, inflateSync, crc32 } from "node:zlib";
import { JpegImage } from "pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs";

export interface Grey {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The height under which a picture is scaled up (a line or two of text), and the most it is scaled. */
const SMALL = 160;
const MAX_SCALE = 4;

const luma = (r: number, g: number, b: number) => (r * 299 + g * 587 + b * 114) / 1000;

/** PNG (non-interlaced, any colour type, bit depth 1 to 16) as grey levels; undefined when not read. */
export function decodePng(buf: Buffer): Grey | undefined {
  let at = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  let type = 0;
  let interlace = 0;
  let palette: Buffer | undefined;
  const idat: Buffer[] = [];
  while (at + 8 <= buf.length) {
    const len = buf.readUInt32BE(at);
    const kind = buf.toString("latin1", at + 4, at + 8);
    const body = buf.subarray(at + 8, at + 8 + len);
    if (kind === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      depth = body[8];
      type = body[9];
      interlace = body[12];
    } else if (kind === "PLTE") palette = body;
    else if (kind === "IDAT") idat.push(body);
    else if (kind === "IEND") break;
    at += 12 + len;
  }
  if (!width || !height || interlace !== 0) return undefined;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[type];
  if (!channels) return undefined;
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = Math.max(1, (channels * depth) / 8);
  const stride = Math.ceil((width * channels * depth) / 8);
  if (raw.length < (stride + 1) * height) return undefined;
  const out = new Uint8Array(width * height);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = new Uint8Array(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      let v = line[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v;
    }
    const sample = (index: number): number => {
      if (depth === 8) return line[index];
      if (depth === 16) return line[index * 2];
      const bit = index * depth;
      const v = (line[bit >> 3] >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
      return type === 3 ? v : Math.round((v * 255) / ((1 << depth) - 1));
    };
    for (let x = 0; x < width; x++) {
      const s = x * channels;
      let g: number;
      if (type === 3) {
        const i = sample(x) * 3;
        g = palette && i + 2 < palette.length ? luma(palette[i], palette[i + 1], palette[i + 2]) : 0;
      } else if (channels >= 3) g = luma(sample(s), sample(s + 1), sample(s + 2));
      else g = sample(s);
      // Transparent pixels are the page behind them: white.
      const alpha = type === 6 ? sample(s + 3) : type === 4 ? sample(s + 1) : 255;
      out[y * width + x] = Math.round((g * alpha + 255 * (255 - alpha)) / 255);
    }
    prev = line;
  }
  return { width, height, data: out };
}

export function decodeJpeg(buf: Buffer): Grey | undefined {
  const jpeg = new JpegImage();
  jpeg.parse(new Uint8Array(buf));
  const { width, height } = jpeg as unknown as { width: number; height: number };
  if (!width || !height) return undefined;
  const rgb = jpeg.getData({ width, height, forceRGB: true, isSourcePDF: false }) as Uint8ClampedArray;
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = luma(rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]);
  return { width, height, data: out };
}

/** Bilinear scaling by an integer factor. */
function scale(img: Grey, f: number): Grey {
  const width = img.width * f;
  const height = img.height * f;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(img.height - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(img.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = Math.min(img.width - 1, Math.max(0, (x + 0.5) / f - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(img.width - 1, x0 + 1);
      const fx = sx - x0;
      const top = img.data[y0 * img.width + x0] * (1 - fx) + img.data[y0 * img.width + x1] * fx;
      const bottom = img.data[y1 * img.width + x0] * (1 - fx) + img.data[y1 * img.width + x1] * fx;
      data[y * width + x] = top * (1 - fy) + bottom * fy;
    }
  }
  return { width, height, data };
}

/** Contrast stretched between the 1st and 99th percentile, then black and white at Otsu's threshold; dark text on light ground either way. */
function binarize(img: Grey): Grey {
  const hist = new Uint32Array(256);
  for (const v of img.data) hist[v]++;
  const n = img.data.length;
  let lo = 0;
  let hi = 255;
  for (let acc = 0; lo < 255 && (acc += hist[lo]) < n * 0.01; ) lo++;
  for (let acc = 0; hi > 0 && (acc += hist[hi]) < n * 0.01; ) hi--;
  const range = Math.max(1, hi - lo);
  const stretched = img.data.map((v) => Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / range))));
  const h2 = new Uint32Array(256);
  for (const v of stretched) h2[v]++;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * h2[i];
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += h2[t];
    if (!wB) continue;
    const wF = n - wB;
    if (!wF) break;
    sumB += t * h2[t];
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  let dark = 0;
  const data = stretched.map((v) => (v > threshold ? 255 : (dark++, 0)));
  // More dark than light: light text on a dark ground, turned the usual way round.
  if (dark > n / 2) for (let i = 0; i < n; i++) data[i] = 255 - data[i];
  return { width: img.width, height: img.height, data };
}

/** An 8-bit greyscale PNG. */
export function encodePng(img: Grey): Buffer {
  const raw = Buffer.alloc((img.width + 1) * img.height);
  for (let y = 0; y < img.height; y++) raw.set(img.data.subarray(y * img.width, (y + 1) * img.width), y * (img.width + 1) + 1);
  const chunk = (kind: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(kind, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0);
  ihdr.writeUInt32BE(img.height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw, { level: 1 })), chunk("IEND", Buffer.alloc(0))]);
}

/**
 * The picture prepared for a second reading, or undefined when it is neither small nor low in
 * contrast (the first reading is as good as it gets) or cannot be decoded here. `maxPixels`
 * bounds the scaled picture as it bounds the original (DLP4).
 */
export function prepareForOcr(buf: Buffer, kind: "png" | "jpeg", maxPixels: number): Buffer | undefined {
  let img: Grey | undefined;
  try {
    img = kind === "png" ? decodePng(buf) : decodeJpeg(buf);
  } catch {
    return undefined;
  }
  if (!img) return undefined;
  const sorted = Uint8Array.from(img.data).sort();
  const spread = sorted[Math.floor(sorted.length * 0.99)] - sorted[Math.floor(sorted.length * 0.01)];
  const small = img.height < SMALL;
  if (!small && spread >= 160) return undefined;
  let f = small ? Math.min(MAX_SCALE, Math.ceil(SMALL / img.height)) : 1;
  while (f > 1 && img.width * img.height * f * f > maxPixels) f--;
  return encodePng(binarize(f > 1 ? scale(img, f) : img));
}
