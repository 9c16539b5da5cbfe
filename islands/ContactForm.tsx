import { useEffect, useLayoutEffect, useRef, useState, type ChangeEvent, type FormEvent } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import CircleCheck from "lucide-react/icons/circle-check";
import Paperclip from "lucide-react/icons/paperclip";
import X from "lucide-react/icons/x";
import {
  checkAttachment,
  EMPTY_FIELDS,
  fieldsFromForm,
  isRequired,
  loadSends,
  toastMessages,
  SEND_DELAY_MS,
  subjectFromQuery,
  validate,
  type FieldErrors,
  type Fields,
} from "./lib/contact.ts";
import type { ContactFormProps } from "./ContactForm.props.ts";
import { checkStorageConfig, uploadAttachment, warmStorage } from "./lib/storage.ts";
import { Field, SendButton } from "./lib/field.tsx";
import { showToast } from "./lib/toasts.ts";
import { CONTACT_MESSAGES } from "./lib/forms.generated.ts";

type Status = "editing" | "submitting" | "sent";

const ORDER: (keyof Fields)[] = ["name", "email", "phone", "company", "subject", "message", "agree"];

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The contact form. The optional image is uploaded to the storage API first. With
 * `messages: "console"` the message is not sent anywhere: after a simulated
 * delivery delay it is written to the console. With `"supabase"` it is inserted
 * into the project's `contact_messages` table, and written to the console too.
 */
export default function ContactForm({ storage, messages, words, toastWords, privacyHref, locale }: ContactFormProps) {
  const toasts = toastMessages(toastWords);
  const [ready, setReady] = useState(false);
  const [fields, setFields] = useState<Fields>(EMPTY_FIELDS);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [file, setFile] = useState<File | null>(null);
  const [status, setStatus] = useState<Status>("editing");
  const fileInput = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const submit = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  // The Sent panel is where the visitor's eyes and focus go, however far the
  // form was scrolled.
  useEffect(() => {
    if (status === "sent") panel.current?.focus();
  }, [status]);

  // On a slow connection the visitor types into the server's HTML before this
  // script arrives. Hydration keeps what the fields hold, but the first render
  // after it would put the (empty) state back: the state takes the fields'
  // values first, and a file already chosen is checked as if chosen now.
  useLayoutEffect(() => {
    const el = form.current;
    if (!el) return;
    const typed = fieldsFromForm((name) => {
      const control = el.elements.namedItem(name);
      return control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement ? control : null;
    });
    setFields(typed);
    if (Object.values(typed).some(Boolean)) void loadSends();
    const chosen = fileInput.current?.files?.[0];
    if (chosen) choose(chosen);
  }, []);

  useEffect(() => {
    setReady(true);
    const check = checkStorageConfig(storage, window.location.origin);
    if (check.ok) console.info(`Storage client ready: ${check.endpoint} (bucket ${storage.bucket})`);
    else console.error(`Storage client could not be created: ${check.reason}`);
  }, [storage]);

  // A link may name the subject (`/contact/?subject=…`, as job postings' "Apply"
  // buttons do). The server's HTML has no query string, so this is applied after
  // hydration, and only to an empty subject: never over what the visitor typed.
  useEffect(() => {
    const subject = subjectFromQuery(window.location.search);
    if (subject) setFields((f) => (f.subject.trim() ? f : { ...f, subject }));
  }, []);

  const describedBy = (id: string, key: keyof Fields, hint = false) =>
    [hint ? `${id}-hint` : "", errors[key] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

  const set = (key: keyof Fields) => (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    const value = event.target instanceof HTMLInputElement && event.target.type === "checkbox" ? event.target.checked : event.target.value;
    setFields((f) => ({ ...f, [key]: value }));
    if (errors[key]) setErrors((e) => ({ ...e, [key]: undefined }));
    void loadSends();
  };

  const clearFile = () => {
    setFile(null);
    if (fileInput.current) fileInput.current.value = "";
  };

  const choose = (chosen: File) => {
    const problem = checkAttachment(chosen);
    if (problem) {
      const message = problem === "too-large" ? toasts.fileTooLarge : toasts.invalidType;
      showToast({ ...message, variant: "destructive" });
      clearFile();
      return;
    }
    setFile(chosen);
  };

  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    if (chosen) choose(chosen);
    else setFile(null);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (status === "submitting") return;
    const found = validate(fields, words, locale);
    setErrors(found);
    const first = ORDER.find((key) => found[key]);
    if (first) {
      form.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    setStatus("submitting");
    const fail = (error: unknown) => {
      const message = error instanceof Error && error.message ? error.message : toasts.failed.fallback;
      showToast({ title: toasts.failed.title, description: message, variant: "destructive" });
      setStatus("editing");
      // Send was disabled while sending, which took the focus from it.
      setTimeout(() => submit.current?.focus(), 0);
    };
    // The same words as a failed attempt are the same message, with its key.
    // Loaded as the visitor filled the form in (not with the page); the storage
    // client starts loading beside it.
    if (file) warmStorage();
    const { dropSend, keepSend, keptSend, sendFor, sendName, sessionKeeping, wordsOf } = await loadSends();
    const keeping = sessionKeeping();
    const kept = sendName(CONTACT_MESSAGES.table, window.location.pathname);
    const send = sendFor(keptSend(keeping, kept), wordsOf(fields, file), Date.now(), () => crypto.randomUUID());
    keepSend(keeping, kept, send);
    let attachment: { key: string; url: string } | null = null;
    if (file) {
      try {
        attachment = await uploadAttachment(storage, file, send);
        keepSend(keeping, kept, { ...send, object: attachment.key });
      } catch (error) {
        fail(error);
        return;
      }
    }
    if (messages === "supabase") {
      // Loaded only here, so the console-only form weighs what it did. The
      // request itself stands in for the simulated delay; a visitor quicker than
      // the table's minimum waits out the rest of it.
      const { insertMessage, messageRow, waitBeforeSending } = await import("./lib/messages.ts");
      await wait(waitBeforeSending(performance.now()));
      const trap = form.current ? new FormData(form.current).get("website") : "";
      const row = messageRow(fields, {
        attachment,
        page: window.location.pathname,
        fillMs: performance.now(),
        trap: typeof trap === "string" ? trap : "",
        sendKey: send.key,
      });
      try {
        await insertMessage(storage, row, window.location.origin);
      } catch (error) {
        fail(error);
        return;
      }
    } else {
      await wait(SEND_DELAY_MS);
    }
    dropSend(keeping, kept);
    console.log(`Contact form submission: ${JSON.stringify({ ...fields, attachmentUrl: attachment?.url ?? null })}`);
    showToast(toasts.sent);
    setFields(EMPTY_FIELDS);
    clearFile();
    setStatus("sent");
  };

  if (status === "sent") {
    return (
      <div ref={panel} tabIndex={-1} className="form-sent" role="status">
        <CircleCheck aria-hidden="true" size={48} className="form-sent__icon" />
        <h3 className="form-sent__title">{words.sent_title}</h3>
        <p>{words.sent_text}</p>
        <button type="button" className="button button--primary" onClick={() => setStatus("editing")}>
          {words.send_another}
        </button>
      </div>
    );
  }

  const submitting = status === "submitting";
  return (
    <form ref={form} className="contact-form" noValidate onSubmit={onSubmit} aria-label={words.label}>
      <div className="form-grid">
        <Field id="contact-name" label={words.name} required={isRequired("name")} error={errors.name}>
          <input id="contact-name" name="name" type="text" autoComplete="name" required={isRequired("name")} value={fields.name} onChange={set("name")} aria-invalid={!!errors.name} aria-describedby={describedBy("contact-name", "name")} />
        </Field>
        <Field id="contact-email" label={words.email} required={isRequired("email")} error={errors.email}>
          <input id="contact-email" name="email" type="email" autoComplete="email" required={isRequired("email")} value={fields.email} onChange={set("email")} aria-invalid={!!errors.email} aria-describedby={describedBy("contact-email", "email")} />
        </Field>
        <Field id="contact-phone" label={words.phone} error={errors.phone}>
          <input id="contact-phone" name="phone" type="tel" autoComplete="tel" value={fields.phone} onChange={set("phone")} aria-invalid={!!errors.phone} aria-describedby={describedBy("contact-phone", "phone")} />
        </Field>
        <Field id="contact-company" label={words.company} error={errors.company}>
          <input id="contact-company" name="company" type="text" autoComplete="organization" value={fields.company} onChange={set("company")} aria-invalid={!!errors.company} aria-describedby={describedBy("contact-company", "company")} />
        </Field>
      </div>
      <Field id="contact-subject" label={words.subject} required={isRequired("subject")} error={errors.subject}>
        <input id="contact-subject" name="subject" type="text" required={isRequired("subject")} value={fields.subject} onChange={set("subject")} aria-invalid={!!errors.subject} aria-describedby={describedBy("contact-subject", "subject")} />
      </Field>
      <Field id="contact-message" label={words.message} required={isRequired("message")} error={errors.message}>
        <textarea id="contact-message" name="message" rows={6} required={isRequired("message")} value={fields.message} onChange={set("message")} aria-invalid={!!errors.message} aria-describedby={describedBy("contact-message", "message")} />
      </Field>
      <Field id="contact-attachment" label={words.attachment}>
        <input ref={fileInput} id="contact-attachment" name="attachment" type="file" accept="image/jpeg,image/png,image/gif" onChange={onFile} />
        {file && (
          <p className="attachment">
            <Paperclip aria-hidden="true" size={16} />
            <span className="attachment__name">{file.name}</span>
            <span className="attachment__size">({formatSize(file.size)})</span>
            <button type="button" className="attachment__remove" onClick={clearFile} aria-label={words.remove?.replace("{name}", file.name)}>
              <X aria-hidden="true" size={16} />
            </button>
          </p>
        )}
      </Field>
      {messages === "supabase" && (
        // The honeypot: people never see or reach it; scripts that fill every
        // field do, and the table refuses their message.
        <div className="contact-form__trap" aria-hidden="true">
          <label htmlFor="contact-website">{words.trap}</label>
          <input id="contact-website" name="website" type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
        </div>
      )}
      <div className={errors.agree ? "field field--check field--invalid" : "field field--check"}>
        <input id="contact-agree" name="agree" type="checkbox" required={isRequired("agree")} checked={fields.agree} onChange={set("agree")} aria-invalid={!!errors.agree} aria-describedby={errors.agree ? "contact-agree-error" : undefined} />
        <label htmlFor="contact-agree">
          {words.agree_before}
          <a href={privacyHref}>{words.privacy_policy}</a>
          {words.agree_after}
          <span aria-hidden="true"> *</span>
        </label>
        {errors.agree && (
          <p id="contact-agree-error" className="field__error">
            {errors.agree}
          </p>
        )}
      </div>
      <SendButton ref={submit} ready={ready} sending={submitting} words={words} />
    </form>
  );
}
