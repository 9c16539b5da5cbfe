import { useEffect, useLayoutEffect, useRef, useState, type ChangeEvent, type FormEvent } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import CircleCheck from "lucide-react/icons/circle-check";
import FileText from "lucide-react/icons/file-text";
import X from "lucide-react/icons/x";
import type { ApplicationFormProps } from "./ApplicationForm.props.ts";
import {
  APPLICATION_ORDER,
  applicationFromForm,
  applicationRow,
  cvKey,
  EMPTY_APPLICATION,
  isClosed,
  validateApplication,
  type ApplicationErrors,
  type ApplicationFields,
} from "./lib/application.ts";
import { loadSends } from "./lib/contact.ts";
import { checkCv, CV_TYPES, type CvKind, type CvProblem } from "./lib/cv.ts";
import { JOB_APPLICATIONS, APPLICATIONS } from "./lib/forms.generated.ts";
import { Field, SendButton } from "./lib/field.tsx";
import { showToast } from "./lib/toasts.ts";

type Status = "editing" | "submitting" | "sent";
type Cv = { file: File; kind: CvKind };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function formatSize(bytes: number, locale: string): string {
  const mb = bytes / (1024 * 1024);
  return mb < 1 ? `${Math.ceil(bytes / 1024).toLocaleString(locale)} KB` : `${mb.toLocaleString(locale, { maximumFractionDigits: 1 })} MB`;
}

/**
 * A job application: the applicant's details, a covering note and a CV (a PDF
 * or Word document, checked by its bytes), sent to the posting's folder of the
 * private applications bucket and the `job_applications` table. A posting past
 * its closing moment shows that it is closed instead.
 */
export default function ApplicationForm({ storage, job, words, privacyHref, locale, countries }: ApplicationFormProps) {
  const [ready, setReady] = useState(false);
  const [closed, setClosed] = useState(job.closed);
  const [fields, setFields] = useState<ApplicationFields>(EMPTY_APPLICATION);
  const [errors, setErrors] = useState<ApplicationErrors>({});
  const [chosenCv, setCv] = useState<Cv | null>(null);
  const [status, setStatus] = useState<Status>("editing");
  // Country names in the page's language, as the build named and ordered them:
  // the server's HTML and the browser's render list them alike.
  const names: ReadonlyMap<string, string> = new Map(countries);
  const fileInput = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const submit = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  // The CV already stored for this file, so a retry after a refused row does
  // not store it twice.
  const uploaded = useRef<{ file: File; key: string } | null>(null);
  // The check of the file just chosen, while it reads the file's bytes (a
  // moment, longer on a busy machine): Send waits for it rather than asking for
  // the CV the visitor has just chosen.
  const checking = useRef<Promise<Cv | null> | null>(null);
  // Set while Send waits for that check, so a second press starts no second send.
  const pressed = useRef(false);
  const id = (name: string) => `apply-${name}`;
  const countryName = (code: string) => names.get(code) ?? code;

  // What the visitor typed into the server's HTML before this script arrived
  // is taken into the state, and a CV already chosen is checked now.
  useLayoutEffect(() => {
    const el = form.current;
    if (!el) return;
    const typed = applicationFromForm((name) => {
      const control = el.elements.namedItem(name);
      return control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement || control instanceof HTMLSelectElement ? control : null;
    });
    setFields(typed);
    if (Object.values(typed).some(Boolean)) void loadSends();
    const chosen = fileInput.current?.files?.[0];
    if (chosen) choose(chosen);
  }, []);

  // The panel that replaces the form is where the visitor's eyes and focus go,
  // however far the form was scrolled.
  useEffect(() => {
    if (status === "sent") panel.current?.focus();
  }, [status]);

  useEffect(() => {
    setReady(true);
    setClosed((c) => c || isClosed(job.closesAt, Date.now()));
  }, [job.closesAt]);

  const describedBy = (name: keyof ApplicationErrors, hint = false) =>
    [hint ? `${id(name)}-hint` : "", errors[name] ? `${id(name)}-error` : ""].filter(Boolean).join(" ") || undefined;

  const set = (key: keyof ApplicationFields) => (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => {
    const target = event.target;
    const value = target instanceof HTMLInputElement && target.type === "checkbox" ? target.checked : target.value;
    setFields((f) => ({ ...f, [key]: value }));
    if (errors[key]) setErrors((e) => ({ ...e, [key]: undefined }));
    void loadSends();
  };

  const clearCv = () => {
    checking.current = null;
    setCv(null);
    if (fileInput.current) fileInput.current.value = "";
  };

  const refuse = (file: File, problem: CvProblem) => {
    const named = (text: string | undefined) => (text ?? "").replaceAll("{name}", file.name);
    const reason = named(words[`cv_${problem}_text`]);
    showToast({ title: named(words[`cv_${problem}_title`]), description: reason, variant: "destructive" });
    // The reason stays at the field after the toast has gone.
    setErrors((e) => ({ ...e, cv: reason }));
    clearCv();
  };

  const choose = (file: File) => {
    const check = checkCv(file).then((checked): Cv | null => {
      // Another file was chosen, or this one removed, while it was read.
      if (checking.current !== check) return null;
      if ("problem" in checked) {
        refuse(file, checked.problem);
        return null;
      }
      const chosen = { file, kind: checked.kind };
      setCv(chosen);
      setErrors((e) => ({ ...e, cv: undefined }));
      return chosen;
    });
    checking.current = check;
    void check.finally(() => {
      if (checking.current === check) checking.current = null;
    });
  };

  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    if (chosen) choose(chosen);
    else clearCv();
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (status === "submitting" || pressed.current) return;
    let cv = chosenCv;
    pressed.current = true;
    try {
      // A check overtaken by another file's hands over to that file's.
      while (checking.current) cv = await checking.current;
    } finally {
      pressed.current = false;
    }
    const found = validateApplication(fields, cv !== null, job, words, locale, countryName);
    setErrors(found);
    const first = APPLICATION_ORDER.find((key) => found[key]);
    if (first) {
      form.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    if (!cv) return;
    if (isClosed(job.closesAt, Date.now())) {
      setClosed(true);
      return;
    }
    setStatus("submitting");
    const fail = (error: unknown) => {
      const message = error instanceof Error && error.message ? error.message : words.failed_text;
      showToast({ title: words.failed_title ?? "", description: message, variant: "destructive" });
      setStatus("editing");
      // Send was disabled while sending, which took the focus from it.
      setTimeout(() => submit.current?.focus(), 0);
    };
    // The sending code, loaded side by side (the send's own as the visitor
    // filled the form in), none of it with the page.
    const messages = import("./lib/messages.ts");
    const storing = import("./lib/storage.ts");
    // The same words as a failed attempt are the same application, with its key
    // and its stored CV (after a reload too).
    const { dropSend, keepSend, keptSend, sendFor, sendName, sessionKeeping, wordsOf } = await loadSends();
    const keeping = sessionKeeping();
    const kept = sendName(JOB_APPLICATIONS.table, window.location.pathname);
    const send = sendFor(keptSend(keeping, kept), wordsOf(fields, cv.file), Date.now(), () => crypto.randomUUID());
    keepSend(keeping, kept, send);
    // Stored already: by an earlier attempt of this send, or for this file on this page.
    let key = send.object ?? (uploaded.current?.file === cv.file ? uploaded.current.key : null);
    if (!key) {
      try {
        const { uploadPrivate } = await storing;
        key = await uploadPrivate({ ...storage, bucket: APPLICATIONS.name }, cvKey(job.id, cv.file.name, send.at, send.key), cv.file, CV_TYPES[cv.kind]);
        uploaded.current = { file: cv.file, key };
      } catch (error) {
        fail(error);
        return;
      }
    }
    keepSend(keeping, kept, { ...send, object: key });
    const { insertRow, waitBeforeSending } = await messages;
    await wait(waitBeforeSending(performance.now()));
    const trap = form.current ? new FormData(form.current).get("website") : "";
    const row = applicationRow(fields, {
      jobId: job.id,
      cvKey: key,
      page: window.location.pathname,
      fillMs: performance.now(),
      trap: typeof trap === "string" ? trap : "",
      sendKey: send.key,
    });
    try {
      await insertRow(storage, JOB_APPLICATIONS.table, row, window.location.origin);
    } catch (error) {
      fail(error);
      return;
    }
    showToast({ title: words.sent_toast_title ?? "", description: words.sent_toast_text });
    dropSend(keeping, kept);
    setFields(EMPTY_APPLICATION);
    clearCv();
    uploaded.current = null;
    setStatus("sent");
  };

  if (closed) {
    return (
      <div ref={panel} tabIndex={-1} className="form-closed" role="status">
        <h3 className="form-sent__title">{words.closed_title}</h3>
        <p>{words.closed_text}</p>
      </div>
    );
  }

  if (status === "sent") {
    return (
      <div ref={panel} tabIndex={-1} className="form-sent" role="status">
        <CircleCheck aria-hidden="true" size={48} className="form-sent__icon" />
        <h3 className="form-sent__title">{words.sent_title}</h3>
        <p>{words.sent_text}</p>
      </div>
    );
  }

  const submitting = status === "submitting";
  const remoteHint = job.applicantsFrom.length > 0 ? (words.country_hint ?? "").replaceAll("{countries}", job.applicantsFrom.map(countryName).join(", ")) : undefined;
  return (
    <form ref={form} className="contact-form application-form" noValidate onSubmit={onSubmit} aria-label={words.label}>
      <div className="form-grid">
        <Field id={id("name")} label={words.name} required error={errors.name}>
          <input id={id("name")} name="name" type="text" autoComplete="name" required value={fields.name} onChange={set("name")} aria-invalid={!!errors.name} aria-describedby={describedBy("name")} />
        </Field>
        <Field id={id("email")} label={words.email} required error={errors.email}>
          <input id={id("email")} name="email" type="email" autoComplete="email" required value={fields.email} onChange={set("email")} aria-invalid={!!errors.email} aria-describedby={describedBy("email")} />
        </Field>
        <Field id={id("phone")} label={words.phone} required error={errors.phone}>
          <input id={id("phone")} name="phone" type="tel" autoComplete="tel" required value={fields.phone} onChange={set("phone")} aria-invalid={!!errors.phone} aria-describedby={describedBy("phone")} />
        </Field>
        <Field id={id("profile")} label={words.profile} error={errors.profile} hint={words.profile_hint}>
          <input id={id("profile")} name="profile" type="url" inputMode="url" autoComplete="url" placeholder="https://" value={fields.profile} onChange={set("profile")} aria-invalid={!!errors.profile} aria-describedby={describedBy("profile", true)} />
        </Field>
      </div>
      <Field id={id("country")} label={words.country} required error={errors.country} hint={remoteHint}>
        <select id={id("country")} name="country" autoComplete="country" required value={fields.country} onChange={set("country")} aria-invalid={!!errors.country} aria-describedby={describedBy("country", !!remoteHint)}>
          <option value="">{words.country_choose}</option>
          {countries.map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id("note")} label={words.note} required error={errors.note}>
        <textarea id={id("note")} name="note" rows={6} required value={fields.note} onChange={set("note")} aria-invalid={!!errors.note} aria-describedby={describedBy("note")} />
      </Field>
      <Field id={id("cv")} label={words.cv} required error={errors.cv} hint={words.cv_hint}>
        <input ref={fileInput} id={id("cv")} name="cv" type="file" required accept={`.pdf,.docx,${APPLICATIONS.types.join(",")}`} onChange={onFile} aria-invalid={!!errors.cv} aria-describedby={describedBy("cv", true)} />
        {chosenCv && (
          <p className="attachment">
            <FileText aria-hidden="true" size={16} />
            <span className="attachment__name">{chosenCv.file.name}</span>
            <span className="attachment__size">({formatSize(chosenCv.file.size, locale)})</span>
            <button type="button" className="attachment__remove" onClick={clearCv} aria-label={(words.remove ?? "").replace("{name}", chosenCv.file.name)}>
              <X aria-hidden="true" size={16} />
            </button>
          </p>
        )}
      </Field>
      {/* The honeypot: people never see or reach it; the table refuses a row that fills it. */}
      <div className="contact-form__trap" aria-hidden="true">
        <label htmlFor={id("website")}>{words.trap}</label>
        <input id={id("website")} name="website" type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
      </div>
      <div className={errors.agree ? "field field--check field--invalid" : "field field--check"}>
        <input id={id("agree")} name="agree" type="checkbox" required checked={fields.agree} onChange={set("agree")} aria-invalid={!!errors.agree} aria-describedby={errors.agree ? `${id("agree")}-error` : undefined} />
        <label htmlFor={id("agree")}>
          {words.agree_before}
          {/* A new tab, so the form keeps what was typed while the notice is read. */}
          <a href={privacyHref} target="_blank" rel="noopener noreferrer">
            {words.privacy_notice}
            <span className="visually-hidden"> {words.new_tab}</span>
          </a>
          {words.agree_after}
          <span aria-hidden="true"> *</span>
        </label>
        {errors.agree && (
          <p id={`${id("agree")}-error`} className="field__error">
            {errors.agree}
          </p>
        )}
      </div>
      <SendButton ref={submit} ready={ready} sending={submitting} words={words} />
    </form>
  );
}
