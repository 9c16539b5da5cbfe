// The job application form's rules, apart from React: its fields, what each
// must hold (the table's bounds, forms.generated.ts), the CV's key, the row
// sent, and whether the posting still takes applications.

import { characters, EMAIL, objectName, type Words } from "./contact.ts";
import { JOB_APPLICATIONS } from "./forms.generated.ts";

export type ApplicationFields = {
  name: string;
  email: string;
  phone: string;
  profile: string;
  country: string;
  note: string;
  agree: boolean;
};

export const EMPTY_APPLICATION: ApplicationFields = {
  name: "",
  email: "",
  phone: "",
  profile: "",
  country: "",
  note: "",
  agree: false,
};

/** The fields in the order they are shown, for focusing the first wrong one. */
export const APPLICATION_ORDER: (keyof ApplicationFields | "cv")[] = ["name", "email", "phone", "profile", "country", "note", "cv", "agree"];

export type ApplicationErrors = Partial<Record<keyof ApplicationFields | "cv", string>>;

const { name, email, phone, profile_url, note } = JOB_APPLICATIONS.maxLength;
export const APPLICATION_MAX = { name, email, phone, profile: profile_url, note } as const;
const PROFILE = new RegExp(JOB_APPLICATIONS.patterns.profile_url);

/** A form control as the fields are read from it. */
export type Control = { value: string; checked?: boolean };

/** The fields as the server's HTML holds them, typed into before hydration. */
export function applicationFromForm(control: (name: keyof ApplicationFields) => Control | null): ApplicationFields {
  const text = (key: Exclude<keyof ApplicationFields, "agree">) => control(key)?.value ?? "";
  return {
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    profile: text("profile"),
    country: text("country"),
    note: text("note"),
    agree: control("agree")?.checked === true,
  };
}

/** What the posting is told of where applicants may live. */
export type Posting = { applicantsFrom: readonly string[] };

/**
 * What is missing or wrong, field by field, in the page's language; empty when
 * the form can be sent. `hasCv`: a CV was chosen and passed its check.
 * `countryName` names a country in the page's language.
 */
export function validateApplication(
  fields: ApplicationFields,
  hasCv: boolean,
  posting: Posting,
  words: Words,
  locale = "en",
  countryName: (code: string) => string = (code) => code,
): ApplicationErrors {
  const errors: ApplicationErrors = {};
  const tooLong = (key: keyof typeof APPLICATION_MAX) =>
    characters(fields[key].trim()) > APPLICATION_MAX[key]
      ? (words.too_long ?? "").replaceAll("{field}", words[`field_${key}`] ?? key).replaceAll("{max}", APPLICATION_MAX[key].toLocaleString(locale))
      : undefined;
  const required = (key: "name" | "phone" | "note") => (fields[key].trim() ? tooLong(key) : words[`required_${key}`]);
  errors.name = required("name");
  if (!fields.email.trim()) errors.email = words.required_email;
  else if (characters(fields.email.trim()) > APPLICATION_MAX.email || !EMAIL.test(fields.email.trim())) errors.email = words.invalid_email;
  errors.phone = required("phone");
  const profile = fields.profile.trim();
  if (profile && (characters(profile) > APPLICATION_MAX.profile || !PROFILE.test(profile))) errors.profile = words.invalid_profile;
  if (!fields.country) errors.country = words.required_country;
  else if (posting.applicantsFrom.length > 0 && !posting.applicantsFrom.includes(fields.country)) {
    errors.country = (words.country_not_taken ?? "").replaceAll("{countries}", posting.applicantsFrom.map(countryName).join(", "));
  }
  errors.note = required("note");
  if (!hasCv) errors.cv = words.required_cv;
  if (!fields.agree) errors.agree = words.required_agree;
  for (const key of Object.keys(errors) as (keyof ApplicationErrors)[]) {
    if (!errors[key]) delete errors[key];
  }
  return errors;
}

/** The key a CV is stored at: `<job id>/<object name>`. */
export function cvKey(jobId: string, fileName: string, timestamp: number, sendKey?: string): string {
  return `${jobId}/${objectName(fileName, timestamp, sendKey)}`;
}

/** Whether the posting has closed by `now` (milliseconds). */
export function isClosed(closesAt: string, now: number): boolean {
  const at = Date.parse(closesAt);
  return Number.isFinite(at) && now >= at;
}

export type ApplicationRow = {
  job_id: string;
  name: string;
  email: string;
  phone: string;
  profile_url: string | null;
  country: string;
  note: string;
  cv_key: string;
  privacy: boolean;
  page: string;
  fill_ms: number;
  website: string;
  send_key: string;
};

/** The row the form inserts: the fields trimmed, as they were validated. */
export function applicationRow(
  fields: ApplicationFields,
  extra: { jobId: string; cvKey: string; page: string; fillMs: number; trap: string; sendKey: string },
): ApplicationRow {
  return {
    job_id: extra.jobId,
    name: fields.name.trim(),
    email: fields.email.trim(),
    phone: fields.phone.trim(),
    profile_url: fields.profile.trim() || null,
    country: fields.country,
    note: fields.note.trim(),
    cv_key: extra.cvKey,
    privacy: fields.agree,
    page: extra.page,
    fill_ms: Math.max(0, Math.round(extra.fillMs)),
    website: extra.trap,
    send_key: extra.sendKey,
  };
}
