// What a chosen CV is, by its bytes: a PDF starts with `%PDF-`; a Word document
// (.docx) is a ZIP whose directory lists `[Content_Types].xml` and
// `word/document.xml`. A file's name and the browser's idea of its type say
// nothing: a picture renamed `cv.pdf`, or any ZIP renamed `.docx`, is refused.

import { APPLICATIONS } from "./forms.generated.ts";

export type CvKind = "pdf" | "docx";
export type CvProblem = "empty" | "too-large" | "invalid-type";

/** The MIME type the CV is stored with. */
export const CV_TYPES: Record<CvKind, (typeof APPLICATIONS.types)[number]> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

export const MAX_CV_BYTES = APPLICATIONS.maxBytes;

const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

/** The names in a ZIP's central directory, or null when `bytes` is not a ZIP. */
export function zipEntries(bytes: Uint8Array): string[] | null {
  if (!startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-directory record is in the last 22 + 65,535 bytes (its comment).
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  let end = -1;
  for (let i = bytes.length - 22; i >= lowest; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const names: string[] = [];
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return null;
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > bytes.length) return null;
    names.push(decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}

/** What the bytes are, or null when neither a PDF nor a Word document. */
export function cvKind(bytes: Uint8Array): CvKind | null {
  if (startsWith(bytes, ascii("%PDF-"))) return "pdf";
  const entries = zipEntries(bytes);
  if (entries?.includes("[Content_Types].xml") && entries.includes("word/document.xml")) return "docx";
  return null;
}

/** Why a file of `size` bytes cannot be sent, before reading it; null if it may be. */
export function sizeProblem(size: number): CvProblem | null {
  if (size === 0) return "empty";
  if (size > MAX_CV_BYTES) return "too-large";
  return null;
}

/** Reads a chosen file and says what it is, or why it cannot be sent. */
export async function checkCv(file: Blob): Promise<{ kind: CvKind } | { problem: CvProblem }> {
  const problem = sizeProblem(file.size);
  if (problem) return { problem };
  const kind = cvKind(new Uint8Array(await file.arrayBuffer()));
  return kind ? { kind } : { problem: "invalid-type" };
}
