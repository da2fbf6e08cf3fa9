import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS with `export default` in its types: under NodeNext the function is either the
// default import itself (the runtime's interop) or its `.default` (what the types say).
type Decode = typeof jsQRModule.default;
const jsQR: Decode = (((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as unknown) as Decode;

/** The text of the QR code in a PNG image (a data URL's bytes or a screenshot), or null. */
export function decodeQrPng(png: Buffer): string | null {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data ?? null;
}
