-- The contact form's messages: the table, what the public may write, the spam
-- measures and how long messages are kept. Rendered from generator/src/forms/,
-- by whose rules `site serve`'s built-in backend decides too, and from
-- contact.retention_months in content/site.yaml (12); after changing
-- either, run
--     site forms --write
-- It can be applied any number of times. It needs pg_cron, which every
-- Supabase project can enable (Database > Extensions).

create table if not exists public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  received_at timestamptz not null default now(),
  status text not null default 'new',
  name text not null,
  email text not null,
  phone text not null default '',
  company text not null default '',
  subject text not null,
  message text not null,
  privacy boolean not null,
  attachment_key text,
  attachment_url text,
  page text not null,
  fill_ms integer not null,
  website text,
  send_key uuid
);

-- A repeat of a send whose answer was lost is stored once: the form's key
-- for the message is unique, and the rate limit's trigger skips a repeat.
-- A table made before the key gets the column; its rows have none, and
-- read as before.
alter table public.contact_messages add column if not exists send_key uuid;
create unique index if not exists contact_messages_send_key_key on public.contact_messages (send_key);

comment on column public.contact_messages.id is 'made by the server';
comment on column public.contact_messages.received_at is 'when the server received it';
comment on column public.contact_messages.status is 'the team''s: new, read or answered';
comment on column public.contact_messages.name is 'the sender''s full name';
comment on column public.contact_messages.email is 'the sender''s e-mail address';
comment on column public.contact_messages.phone is 'optional';
comment on column public.contact_messages.company is 'optional';
comment on column public.contact_messages.privacy is 'the privacy policy was accepted';
comment on column public.contact_messages.attachment_key is 'the image''s key in the contact-attachments bucket';
comment on column public.contact_messages.attachment_url is 'the image''s public URL';
comment on column public.contact_messages.page is 'the path of the page the form was sent from';
comment on column public.contact_messages.fill_ms is 'milliseconds from the form''s first render to its submission';
comment on column public.contact_messages.website is 'the honeypot: a field people never see, so always empty';
comment on column public.contact_messages.send_key is 'the form''s key for one message the visitor means to send: a repeated send is stored once';

-- The form's own validation, and a bound on every field, where the database
-- enforces it whoever writes.
alter table public.contact_messages drop constraint if exists contact_messages_attachment_check;
alter table public.contact_messages add constraint contact_messages_attachment_check check ((attachment_key is null) = (attachment_url is null));
alter table public.contact_messages drop constraint if exists contact_messages_attachment_key_check;
alter table public.contact_messages add constraint contact_messages_attachment_key_check check (char_length(attachment_key) <= 1024 and attachment_key ~ '^public/[0-9]{13}_[A-Za-z0-9._-]{1,91}$');
alter table public.contact_messages drop constraint if exists contact_messages_attachment_url_check;
alter table public.contact_messages add constraint contact_messages_attachment_url_check check (char_length(attachment_url) <= 2048 and attachment_url ~ '^https?://[A-Za-z0-9.:-]+/storage/v1/object/public/contact-attachments/public/[!-~]+$');
alter table public.contact_messages drop constraint if exists contact_messages_company_check;
alter table public.contact_messages add constraint contact_messages_company_check check (char_length(company) <= 200);
alter table public.contact_messages drop constraint if exists contact_messages_email_check;
alter table public.contact_messages add constraint contact_messages_email_check check (char_length(email) <= 254 and email ~ '^[a-zA-Z0-9.!#$%&''*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$');
alter table public.contact_messages drop constraint if exists contact_messages_message_check;
alter table public.contact_messages add constraint contact_messages_message_check check (char_length(message) <= 5000 and btrim(message) <> '');
alter table public.contact_messages drop constraint if exists contact_messages_name_check;
alter table public.contact_messages add constraint contact_messages_name_check check (char_length(name) <= 200 and btrim(name) <> '');
alter table public.contact_messages drop constraint if exists contact_messages_page_check;
alter table public.contact_messages add constraint contact_messages_page_check check (char_length(page) <= 2048 and page ~ '^/[!-~]*$');
alter table public.contact_messages drop constraint if exists contact_messages_phone_check;
alter table public.contact_messages add constraint contact_messages_phone_check check (char_length(phone) <= 50);
alter table public.contact_messages drop constraint if exists contact_messages_privacy_check;
alter table public.contact_messages add constraint contact_messages_privacy_check check (privacy);
alter table public.contact_messages drop constraint if exists contact_messages_status_check;
alter table public.contact_messages add constraint contact_messages_status_check check (status in ('new', 'read', 'answered'));
alter table public.contact_messages drop constraint if exists contact_messages_subject_check;
alter table public.contact_messages add constraint contact_messages_subject_check check (char_length(subject) <= 200 and btrim(subject) <> '');

-- The public may insert a row, naming only the form's columns, and nothing
-- else: no SELECT (so no `return=representation`, and no reading back even its
-- own row), UPDATE or DELETE. The team reads messages in the dashboard, as a
-- role that bypasses row-level security.
alter table public.contact_messages enable row level security;
revoke all on table public.contact_messages from anon, authenticated;
grant insert (name, email, phone, company, subject, message, privacy, attachment_key, attachment_url, page, fill_ms, website, send_key) on table public.contact_messages to anon;

-- Spam: the honeypot `website` must be empty (people never see it; scripts that
-- fill every field do), and the form must have been open at least
-- 3000 ms (a person takes longer; a script that posts at once does not).
drop policy if exists "contact_messages: public inserts" on public.contact_messages;
create policy "contact_messages: public inserts"
  on public.contact_messages
  for insert
  to anon
  with check (coalesce(website, '') = '' and fill_ms >= 3000);

-- Spam: at most 5 messages an hour from one sender and 5 to one
-- e-mail address. Counted in a table the public cannot reach, by a
-- security-definer trigger; a refused row is not counted (its transaction
-- rolls back). PostgREST answers the raised PT429 with HTTP 429.
create schema if not exists private;
revoke all on schema private from public, anon, authenticated;

-- The sender is the address Cloudflare, in front of Supabase's API, saw:
-- CF-Connecting-IP, which it overwrites, else the last entry of
-- X-Forwarded-For, the one the last proxy appended (the entries before it
-- are the client's to write). An IPv6 address counts as its /64, which one
-- client holds whole. See docs/deploy.md, "Who sent a message".
create or replace function private.contact_sender(headers json)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  given text := coalesce(
    nullif(btrim(headers ->> 'cf-connecting-ip'), ''),
    nullif(btrim(substring(headers ->> 'x-forwarded-for' from '[^,]*$')), ''));
  address inet;
begin
  if given is null then
    return null;
  end if;
  begin
    address := given::inet;
  exception when others then
    return given;
  end;
  if family(address) = 6 and address << '::ffff:0:0/96'::inet then
    return host('0.0.0.0'::inet + (address - '::ffff:0.0.0.0'::inet));
  elsif family(address) = 6 then
    return host(network(set_masklen(address, 64))) || '/64';
  end if;
  return host(address);
end
$$;
revoke all on function private.contact_sender(json) from public, anon, authenticated;
create table if not exists private.contact_message_rate (
  key_hash text not null,
  at timestamptz not null default now()
);
create index if not exists contact_message_rate_key_at
  on private.contact_message_rate (key_hash, at);

create or replace function private.contact_messages_rate_limit()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  headers json := nullif(current_setting('request.headers', true), '')::json;
  sender text := private.contact_sender(headers);
  key text;
  hash text;
  earlier public.contact_messages;
begin
  -- A repeat of a send, its key already in the table, is skipped (a
  -- BEFORE trigger's null inserts nothing) and answered as a success,
  -- uncounted. ON CONFLICT DO NOTHING would need the public to hold
  -- SELECT on the key; this needs no right beyond the insert. The
  -- attempts of one key are decided one at a time, so a repeat that
  -- overtakes its first attempt waits for it. A key sent again with
  -- other words is refused: a new message needs a new key.
  if new.send_key is not null then
    perform pg_advisory_xact_lock(hashtextextended('send_key:' || new.send_key::text, 0));
    select * into earlier from public.contact_messages t where t.send_key = new.send_key;
    if found then
      if (earlier.name, earlier.email, earlier.phone, earlier.company, earlier.subject, earlier.message, earlier.privacy, earlier.attachment_key, earlier.attachment_url, earlier.page) is distinct from (new.name, new.email, new.phone, new.company, new.subject, new.message, new.privacy, new.attachment_key, new.attachment_url, new.page) then
        raise exception using errcode = '23505', message = 'This message''s key was sent before with other words: a new message needs a new key.';
      end if;
      return null;
    end if;
  end if;
  foreach key in array array['address:' || sender, 'email:' || lower(new.email)] loop
    continue when key is null;
    hash := encode(sha256(convert_to(key, 'UTF8')), 'hex');
    -- One sender's messages are counted one at a time.
    perform pg_advisory_xact_lock(hashtextextended(hash, 0));
    if (select count(*) from private.contact_message_rate r
        where r.key_hash = hash and r.at > now() - interval '3600 seconds') >= 5 then
      raise exception using errcode = 'PT429', message = case
        when key like 'address:%' then 'Too many messages have been sent from your network in the last hour. Please try again later.'
        else 'Too many messages have been sent from this e-mail address in the last hour. Please try again later.' end;
    end if;
    insert into private.contact_message_rate (key_hash) values (hash);
  end loop;
  return new;
end
$$;
revoke all on function private.contact_messages_rate_limit() from public, anon, authenticated;
drop trigger if exists contact_messages_rate_limit on public.contact_messages;
create trigger contact_messages_rate_limit
  before insert on public.contact_messages
  for each row execute function private.contact_messages_rate_limit();

-- An image's URL must be the project's own public URL of exactly its key:
-- another host, http, or another key's URL could be a link the team opens
-- from the dashboard. The project's URL is not known to this migration: it
-- is kept in Vault as the secret `project_url` (docs/deploy.md), which must
-- be https (or http on loopback, the local stack). Without it, a message
-- with an image is refused with a hint, not stored unchecked.
create or replace function private.contact_attachment_url(key text)
returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  project text;
begin
  select rtrim(btrim(s.decrypted_secret), '/') into project
    from vault.decrypted_secrets s where s.name = 'project_url';
  if project is null or project !~ '^(https://[A-Za-z0-9.-]+|http://(127\.0\.0\.1|localhost))(:[0-9]{1,5})?$' then
    raise exception using errcode = 'PT500',
      message = 'The project''s URL is not set in Vault (or is not https), so the image''s address cannot be checked.',
      hint = 'Once, in the SQL Editor: select vault.create_secret(''https://<project-ref>.supabase.co'', ''project_url''); see docs/deploy.md.';
  end if;
  return project || '/storage/v1/object/public/contact-attachments/' || key;
end
$$;
revoke all on function private.contact_attachment_url(text) from public, anon, authenticated;

create or replace function private.contact_messages_attachment_url()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.attachment_key is not null and new.attachment_url is not null
     and new.attachment_url is distinct from private.contact_attachment_url(new.attachment_key) then
    raise exception using errcode = '23514', message = 'The image''s address is not this project''s storage address for its key.';
  end if;
  return new;
end
$$;
revoke all on function private.contact_messages_attachment_url() from public, anon, authenticated;
drop trigger if exists contact_messages_attachment_url on public.contact_messages;
create trigger contact_messages_attachment_url
  before insert on public.contact_messages
  for each row execute function private.contact_messages_attachment_url();

-- Retention: every night, messages older than 12 months are deleted
-- (contact.retention_months in content/site.yaml; the privacy policy says so),
-- and the rate limit's counts older than a day. cron.schedule replaces the job
-- of the same name. Images go by
-- deploy/delete-old-attachments.mjs: Supabase lets no SQL delete a file.
create extension if not exists pg_cron with schema pg_catalog;
select cron.schedule(
  'contact-messages-retention',
  '17 3 * * *',
  $$delete from public.contact_messages where received_at < now() - interval '12 months';
    delete from private.contact_message_rate where at < now() - interval '1 day'$$
);
