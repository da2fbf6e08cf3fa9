import { PNG } from 'pngjs';

/** A multipart/form-data body built by hand, as a browser's FormData would send it. */
export function multipart(fields: Record<string, string>, file?: { field?: string; filename: string; type: string; data: Buffer }) {
  const boundary = `----insights${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'photo'}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
    chunks.push(file.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A real 2×2 PNG. */
export function png(): Buffer {
  const img = new PNG({ width: 2, height: 2 });
  img.data.fill(200);
  return PNG.sync.write(img);
}

/** A PNG's bytes padded to exactly `size` bytes (file-type reads the signature; the size is what is tested). */
export function pngOfSize(size: number): Buffer {
  const head = png();
  const out = Buffer.alloc(size, 0);
  head.copy(out, 0, 0, Math.min(head.length, size));
  return out;
}

/** The start of a JPEG (SOI + JFIF APP0): what file-type recognises as image/jpeg. */
export function jpeg(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]), Buffer.alloc(200, 0x11), Buffer.from([0xff, 0xd9])]);
}
