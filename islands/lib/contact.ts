// The contact form's rules, apart from React: required fields, the attachment's
// type and size, the storage key, and the messages the visitor sees. The limits
// are the table's and the bucket's (forms.generated.ts).

import { CONTACT_ATTACHMENTS, CONTACT_MESSAGES } from "./forms.generated.ts";

export const MAX_ATTACHMENT_BYTES = CONTACT_ATTACHMENTS.maxBytes;
export const ACCEPTED_TYPES = CONTACT_ATTACHMENTS.types;
export const SEND_DELAY_MS = 1500;
export const CACHE_CONTROL_SECONDS = "3600";

/**
 * The form's words in the page's language: the `form` section of
 * content/strings/<code>.yaml (labels, validation messages), and the `toast`
 * section (the toasts' titles and texts). The English ones are the spec's.
 */
export type Words = Record<string, string>;

/** The toasts the form shows, in the page's language. */
export function toastMessages(toast: Words) {
  return {
    fileTooLarge: { title: toast.too_large_title ?? "", description: toast.too_large_text ?? "" },
    invalidType: { title: toast.invalid_type_title ?? "", description: toast.invalid_type_text ?? "" },
    failed: { title: toast.failed_title ?? "", fallback: toast.failed_text ?? "" },
    sent: { title: toast.sent_title ?? "", description: toast.sent_text ?? "" },
  };
}

export type Fields = {
  name: string;
  email: string;
  phone: string;
  company: string;
  subject: string;
  message: string;
  agree: boolean;
};

export const EMPTY_FIELDS: Fields = {
  name: "",
  email: "",
  phone: "",
  company: "",
  subject: "",
  message: "",
  agree: false,
};

export type FieldErrors = Partial<Record<keyof Fields, string>>;

/** A form control as the form's fields are read from it: a text field or the checkbox. */
export type Control = { value: string; type?: string; checked?: boolean };

/**
 * The fields as a form's controls hold them: what the visitor typed and chose
 * in the server's HTML before the island hydrated, which must survive it.
 * `control(name)` gives the control of that name, or null.
 */
export function fieldsFromForm(control: (name: keyof Fields) => Control | null): Fields {
  const text = (name: Exclude<keyof Fields, "agree">) => control(name)?.value ?? "";
  return {
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    company: text("company"),
    subject: text("subject"),
    message: text("message"),
    agree: control("agree")?.checked === true,
  };
}

// The same rule browsers apply to <input type="email">, and the tables.
export const EMAIL = new RegExp(CONTACT_MESSAGES.patterns.email);

/** The longest value of each text field, in characters: the table's bounds. */
const { name, email, phone, company, subject, message } = CONTACT_MESSAGES.maxLength;
export const MAX_LENGTH = { name, email, phone, company, subject, message } as const;

/** Characters as PostgreSQL counts them: code points, not UTF-16 units. */
export const characters = (s: string) => Array.from(s).length;

/** The column of the table each field of the form fills. */
const COLUMN: Record<keyof Fields, string> = {
  name: "name",
  email: "email",
  phone: "phone",
  company: "company",
  subject: "subject",
  message: "message",
  agree: "privacy",
};

/** Whether the table requires the field: its rules, not a list of its own (generator/src/forms/contact.rs). */
export const isRequired = (key: keyof Fields) => (CONTACT_MESSAGES.required as readonly string[]).includes(COLUMN[key]);

const TEXT_FIELDS = ["name", "email", "phone", "company", "subject", "message"] as const;

/**
 * What is missing or wrong, field by field, in the words of the page's
 * language (`locale` writes the numbers); empty when the form can be sent.
 * A required field is one the table requires; the privacy policy must be
 * accepted, as the table's check says.
 */
export function validate(fields: Fields, words: Words, locale = "en"): FieldErrors {
  const errors: FieldErrors = {};
  for (const key of TEXT_FIELDS) {
    const value = fields[key].trim();
    if (!value) {
      if (isRequired(key)) errors[key] = words[`required_${key}`];
    } else if (key === "email" && (characters(value) > MAX_LENGTH.email || !EMAIL.test(value))) {
      errors.email = words.invalid_email;
    } else if (characters(value) > MAX_LENGTH[key]) {
      errors[key] = (words.too_long ?? "")
        .replaceAll("{field}", words[`field_${key}`] ?? key)
        .replaceAll("{max}", MAX_LENGTH[key].toLocaleString(locale));
    }
  }
  if (!fields.agree) errors.agree = words.required_agree;
  return errors;
}

export type AttachmentProblem = "too-large" | "invalid-type";

/** Why a chosen file cannot be attached, or null when it can. Type is checked first. */
export function checkAttachment(file: { type: string; size: number }): AttachmentProblem | null {
  if (!(ACCEPTED_TYPES as readonly string[]).includes(file.type)) return "invalid-type";
  if (file.size > MAX_ATTACHMENT_BYTES) return "too-large";
  return null;
}

/**
 * A file name made safe for a storage key: the real server accepts only ASCII
 * letters, digits and a few symbols, and `#`, `?` and `%` would change the URL.
 * Accents are dropped rather than lost ("Café" → "Cafe"), runs of anything else
 * become one `_`, and the extension is kept.
 */
export function safeFileName(name: string, maxBase = 80): string {
  // Only the last path segment is a file name (some browsers send a path).
  const last = name.split(/[\\/]/).pop() ?? "";
  const ascii = last.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const dot = ascii.lastIndexOf(".");
  const [base, ext] = dot > 0 ? [ascii.slice(0, dot), ascii.slice(dot + 1)] : [ascii, ""];
  const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+|[._]+$/g, "");
  const safeBase = clean(base).slice(0, maxBase) || "attachment";
  const safeExt = clean(ext).slice(0, 10).toLowerCase();
  return safeExt ? `${safeBase}.${safeExt}` : safeBase;
}

/**
 * A stored file's name in its folder: `<timestamp>_<file name>`, or with its
 * send's key, `<timestamp>_<key's 32 digits>_<file name>`: the same for every
 * attempt of one send, so the storage refuses a second copy, and no one else's.
 * The name stays within the buckets' 91 characters after the timestamp.
 */
export function objectName(fileName: string, timestamp: number, sendKey?: string): string {
  if (!sendKey) return `${timestamp}_${safeFileName(fileName)}`;
  return `${timestamp}_${sendKey.replaceAll("-", "")}_${safeFileName(fileName, 47)}`;
}

/** The sending code's module, once asked for. */
let sendsModule: Promise<typeof import("./sends.ts")> | null = null;

/**
 * The sending code (`sends.ts`), loaded once: the forms ask for it when the
 * visitor first fills them in, so that Send finds it loaded, and it stays out
 * of the page's first load.
 */
export function loadSends(): Promise<typeof import("./sends.ts")> {
  return (sendsModule ??= import("./sends.ts"));
}

/**
 * How long a form waits before it sends or uploads again by itself, after the
 * network failed (messages.ts, storage.ts). Here, with the rules every form
 * loads, so that the sending code can stay out of the page's first load.
 */
export const RETRY_AFTER_MS = 1000;

/** The key an attachment is stored at: `public/<object name>`. */
export function storageKey(fileName: string, timestamp: number, sendKey?: string): string {
  return `public/${objectName(fileName, timestamp, sendKey)}`;
}

/** The storage API's address: the configured URL, or this site's own origin. */
export function storageEndpoint(configuredUrl: string, origin: string): string {
  const base = configuredUrl.trim() || origin;
  return `${base.replace(/\/+$/, "")}/storage/v1`;
}

/** The longest subject taken from a link, in characters. */
export const MAX_QUERY_SUBJECT = 150;

/**
 * The subject a link asks the form to start with (`/contact/?subject=…`, as the
 * job postings' "Apply" buttons send), or null when there is none. Decoded by
 * URLSearchParams (so `+` is a space), with runs of whitespace and control
 * characters made one space (a subject is one line), trimmed, and cut to
 * MAX_QUERY_SUBJECT characters, at a space when one is in the second half.
 */
export function subjectFromQuery(search: string): string | null {
  const raw = new URLSearchParams(search).get("subject");
  if (raw === null) return null;
  const clean = raw.replace(/[\s\p{Cc}]+/gu, " ").trim();
  // Count code points, so a cut never splits an emoji's surrogate pair.
  const chars = Array.from(clean);
  if (chars.length <= MAX_QUERY_SUBJECT) return clean || null;
  let cut = chars.slice(0, MAX_QUERY_SUBJECT).join("");
  if (chars[MAX_QUERY_SUBJECT] !== " ") {
    const space = cut.lastIndexOf(" ");
    if (space >= cut.length / 2) cut = cut.slice(0, space);
  }
  return cut.trimEnd() || null;
}
