/**
 * Reads ESC/POS bytes back (tests of issue 24): the text in code page 858 (the upper half as far as
 * Dutch needs it, written out here on purpose rather than taken from the encoder), the commands seen.
 */
const CP858: Record<number, string> = {
  0x80: 'Ç', 0x81: 'ü', 0x82: 'é', 0x83: 'â', 0x84: 'ä', 0x85: 'à', 0x87: 'ç', 0x88: 'ê', 0x89: 'ë', 0x8a: 'è',
  0x8b: 'ï', 0x8c: 'î', 0x8e: 'Ä', 0x90: 'É', 0x93: 'ô', 0x94: 'ö', 0x96: 'û', 0x97: 'ù', 0x99: 'Ö', 0x9a: 'Ü',
  0x9e: '×', 0xa0: 'á', 0xa1: 'í', 0xa2: 'ó', 0xa3: 'ú', 0xa4: 'ñ', 0xd5: '€', 0xf8: '°',
};

export interface Decoded {
  /** The printed text, lines joined with \n. */
  text: string;
  lines: string[];
  /** Code pages selected with ESC t, in order. */
  codepages: number[];
  /** Text printed while inverse (GS B 1) was on. */
  inverse: string[];
  /** Text printed while bold (ESC E 1) was on. */
  bold: string[];
  /** GS V cuts seen, and whether the stream ends with one (only line feeds after it). */
  cuts: number;
  endsWithCut: boolean;
  initialized: boolean;
}

export function decodeEscPos(input: Uint8Array): Decoded {
  const b = Buffer.from(input);
  let cp = 0;
  let text = '';
  let inv = false;
  let bold = false;
  let invBuf = '';
  let boldBuf = '';
  const out: Decoded = { text: '', lines: [], codepages: [], inverse: [], bold: [], cuts: 0, endsWithCut: false, initialized: false };
  let lastCutAt = -1;
  const flushInv = () => {
    if (invBuf.trim()) out.inverse.push(invBuf.trim());
    invBuf = '';
  };
  const flushBold = () => {
    if (boldBuf.trim()) out.bold.push(boldBuf.trim());
    boldBuf = '';
  };
  for (let i = 0; i < b.length; i += 1) {
    const c = b[i]!;
    if (c === 0x1b) {
      const cmd = b[i + 1]!;
      if (cmd === 0x40) out.initialized = true;
      if (cmd === 0x74) out.codepages.push((cp = b[i + 2]!));
      if (cmd === 0x45) {
        const on = (b[i + 2]! & 1) === 1;
        if (!on) flushBold();
        bold = on;
      }
      i += cmd === 0x40 || cmd === 0x32 ? 1 : 2;
    } else if (c === 0x1c) {
      const cmd = b[i + 1]!;
      i += cmd === 0x43 ? 2 : 1;
    } else if (c === 0x1d) {
      const cmd = b[i + 1]!;
      if (cmd === 0x56) {
        out.cuts += 1;
        const m = b[i + 2]!;
        i += m >= 65 ? 3 : 2;
        lastCutAt = i;
      } else if (cmd === 0x42) {
        const on = b[i + 2] === 1;
        if (!on) flushInv();
        inv = on;
        i += 2;
      } else if (cmd === 0x4c || cmd === 0x57) i += 3;
      else i += 2;
    } else if (c === 0x0a) {
      text += '\n';
    } else if (c === 0x0d) {
      // carriage return: nothing
    } else {
      const ch = c < 0x80 ? String.fromCharCode(c) : cp === 19 ? (CP858[c] ?? '?') : '?';
      text += ch;
      if (inv) invBuf += ch;
      if (bold) boldBuf += ch;
    }
  }
  flushInv();
  flushBold();
  out.text = text;
  out.lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  out.endsWithCut = lastCutAt >= 0 && [...b.subarray(lastCutAt + 1)].every((x) => x === 0x0a || x === 0x0d);
  return out;
}
