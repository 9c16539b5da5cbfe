-- Job applications: the table, what the public may write, the spam
-- measures and how long applications are kept. Rendered from generator/src/forms/,
-- by whose rules `site serve`'s built-in backend decides too, and from
-- careers.retention_months in content/site.yaml (6); after changing
-- either, run
--     site forms --write
-- It can be applied any number of times. It needs pg_cron, which every
-- Supabase project can enable (Database > Extensions).

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('applications', 'applications', false, 10485760, array['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'])
on conflict (id) do update set
  public = excluded.public,
  file_size_limit = excluded.file_size_limit,
  allowed_mime_types = excluded.allowed_mime_types;

-- Whether a posting takes applications now: the only folders the public
-- may upload into. public.job_openings is written by the deploy.
create or replace function public.job_takes_applications(job text)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return exists (select 1 from public.job_openings o where o.job_id = job and o.closes_at > now());
end
$$;
revoke all on function public.job_takes_applications(text) from public;
grant execute on function public.job_takes_applications(text) to anon, authenticated;

-- The public may upload new objects, only into this bucket, only in the
-- folder of a posting that takes applications now, and only with keys of the form the site makes:
--     <job id>/<13-digit millisecond timestamp>_<safe file name>
-- There is no UPDATE, DELETE or SELECT policy for anon: it cannot overwrite
-- (an upsert needs UPDATE), remove or list anyone's uploads. The bucket is
-- private: no public URL, and nothing anonymous reads an object back.
drop policy if exists "applications: public uploads" on storage.objects;
create policy "applications: public uploads"
  on storage.objects
  for insert
  to anon
  with check (
    bucket_id = 'applications'
    and name ~ '^[a-z0-9][a-z0-9-]{0,99}/[0-9]{13}_[A-Za-z0-9._-]{1,91}$'
    and public.job_takes_applications((storage.foldername(name))[1])
  );

create table if not exists public.job_applications (
  id uuid primary key default gen_random_uuid(),
  received_at timestamptz not null default now(),
  status text not null default 'new',
  job_id text not null,
  name text not null,
  email text not null,
  phone text not null,
  profile_url text,
  country text not null,
  note text not null,
  cv_key text not null,
  privacy boolean not null,
  page text not null,
  fill_ms integer not null,
  website text,
  send_key uuid
);

-- A repeat of a send whose answer was lost is stored once: the form's key
-- for the message is unique, and the rate limit's trigger skips a repeat.
-- A table made before the key gets the column; its rows have none, and
-- read as before.
alter table public.job_applications add column if not exists send_key uuid;
create unique index if not exists job_applications_send_key_key on public.job_applications (send_key);

comment on column public.job_applications.id is 'made by the server';
comment on column public.job_applications.received_at is 'when the server received it';
comment on column public.job_applications.status is 'the team''s: new, reviewing, declined or hired';
comment on column public.job_applications.job_id is 'the posting: its file name in content/pages/careers/';
comment on column public.job_applications.name is 'the applicant''s full name';
comment on column public.job_applications.email is 'the applicant''s e-mail address';
comment on column public.job_applications.phone is 'the applicant''s phone number';
comment on column public.job_applications.profile_url is 'optional: a profile or portfolio, https only';
comment on column public.job_applications.country is 'where the applicant lives, a two-letter ISO 3166 code';
comment on column public.job_applications.note is 'the covering note';
comment on column public.job_applications.cv_key is 'the CV''s key in the private applications bucket';
comment on column public.job_applications.privacy is 'the applicants'' privacy notice was accepted';
comment on column public.job_applications.page is 'the path of the page the form was sent from';
comment on column public.job_applications.fill_ms is 'milliseconds from the form''s first render to its submission';
comment on column public.job_applications.website is 'the honeypot: a field people never see, so always empty';
comment on column public.job_applications.send_key is 'the form''s key for one message the visitor means to send: a repeated send is stored once';

-- The form's own validation, and a bound on every field, where the database
-- enforces it whoever writes.
alter table public.job_applications drop constraint if exists job_applications_country_check;
alter table public.job_applications add constraint job_applications_country_check check (char_length(country) <= 2 and country ~ '^[A-Z]{2}$');
alter table public.job_applications drop constraint if exists job_applications_cv_folder_check;
alter table public.job_applications add constraint job_applications_cv_folder_check check (split_part(cv_key, '/', 1) = job_id);
alter table public.job_applications drop constraint if exists job_applications_cv_key_check;
alter table public.job_applications add constraint job_applications_cv_key_check check (char_length(cv_key) <= 1024 and cv_key ~ '^[a-z0-9][a-z0-9-]{0,99}/[0-9]{13}_[A-Za-z0-9._-]{1,91}$');
alter table public.job_applications drop constraint if exists job_applications_email_check;
alter table public.job_applications add constraint job_applications_email_check check (char_length(email) <= 254 and email ~ '^[a-zA-Z0-9.!#$%&''*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$');
alter table public.job_applications drop constraint if exists job_applications_job_id_check;
alter table public.job_applications add constraint job_applications_job_id_check check (char_length(job_id) <= 100 and job_id ~ '^[a-z0-9][a-z0-9-]{0,99}$');
alter table public.job_applications drop constraint if exists job_applications_name_check;
alter table public.job_applications add constraint job_applications_name_check check (char_length(name) <= 200 and btrim(name) <> '');
alter table public.job_applications drop constraint if exists job_applications_note_check;
alter table public.job_applications add constraint job_applications_note_check check (char_length(note) <= 5000 and btrim(note) <> '');
alter table public.job_applications drop constraint if exists job_applications_page_check;
alter table public.job_applications add constraint job_applications_page_check check (char_length(page) <= 2048 and page ~ '^/[!-~]*$');
alter table public.job_applications drop constraint if exists job_applications_phone_check;
alter table public.job_applications add constraint job_applications_phone_check check (char_length(phone) <= 50 and btrim(phone) <> '');
alter table public.job_applications drop constraint if exists job_applications_privacy_check;
alter table public.job_applications add constraint job_applications_privacy_check check (privacy);
alter table public.job_applications drop constraint if exists job_applications_profile_url_check;
alter table public.job_applications add constraint job_applications_profile_url_check check (char_length(profile_url) <= 2048 and profile_url ~ '^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$');
alter table public.job_applications drop constraint if exists job_applications_status_check;
alter table public.job_applications add constraint job_applications_status_check check (status in ('new', 'reviewing', 'declined', 'hired'));

-- The public may insert a row, naming only the form's columns, and nothing
-- else: no SELECT (so no `return=representation`, and no reading back even its
-- own row), UPDATE or DELETE. The team reads applications in the dashboard, as a
-- role that bypasses row-level security.
alter table public.job_applications enable row level security;
revoke all on table public.job_applications from anon, authenticated;
grant insert (job_id, name, email, phone, profile_url, country, note, cv_key, privacy, page, fill_ms, website, send_key) on table public.job_applications to anon;

-- Spam: the honeypot `website` must be empty (people never see it; scripts that
-- fill every field do), and the form must have been open at least
-- 3000 ms (a person takes longer; a script that posts at once does not).
drop policy if exists "job_applications: public inserts" on public.job_applications;
create policy "job_applications: public inserts"
  on public.job_applications
  for insert
  to anon
  with check (coalesce(website, '') = '' and fill_ms >= 3000);

-- Spam: at most 5 applications an hour from one sender and 5 to one
-- e-mail address. Counted in a table the public cannot reach, by a
-- security-definer trigger; a refused row is not counted (its transaction
-- rolls back). PostgREST answers the raised PT429 with HTTP 429.
create schema if not exists private;
revoke all on schema private from public, anon, authenticated;
create table if not exists private.job_application_rate (
  key_hash text not null,
  at timestamptz not null default now()
);
create index if not exists job_application_rate_key_at
  on private.job_application_rate (key_hash, at);

create or replace function private.job_applications_rate_limit()
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
  earlier public.job_applications;
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
    select * into earlier from public.job_applications t where t.send_key = new.send_key;
    if found then
      if (earlier.job_id, earlier.name, earlier.email, earlier.phone, earlier.profile_url, earlier.country, earlier.note, earlier.cv_key, earlier.privacy, earlier.page) is distinct from (new.job_id, new.name, new.email, new.phone, new.profile_url, new.country, new.note, new.cv_key, new.privacy, new.page) then
        raise exception using errcode = '23505', message = 'This message''s key was sent before with other words: a new message needs a new key.';
      end if;
      return null;
    end if;
  end if;
  foreach key in array array['address:' || sender, 'email:' || lower(new.email)] loop
    continue when key is null;
    hash := encode(sha256(convert_to(key, 'UTF8')), 'hex');
    -- One sender's applications are counted one at a time.
    perform pg_advisory_xact_lock(hashtextextended(hash, 0));
    if (select count(*) from private.job_application_rate r
        where r.key_hash = hash and r.at > now() - interval '3600 seconds') >= 5 then
      raise exception using errcode = 'PT429', message = case
        when key like 'address:%' then 'Too many applications have been sent from your network in the last hour. Please try again later.'
        else 'Too many applications have been sent from this e-mail address in the last hour. Please try again later.' end;
    end if;
    insert into private.job_application_rate (key_hash) values (hash);
  end loop;
  return new;
end
$$;
revoke all on function private.job_applications_rate_limit() from public, anon, authenticated;
drop trigger if exists job_applications_rate_limit on public.job_applications;
create trigger job_applications_rate_limit
  before insert on public.job_applications
  for each row execute function private.job_applications_rate_limit();

-- A row names its file by key: the object must be in the applications bucket,
-- uploaded before the row (the form uploads first), and be what the
-- bucket takes by the storage's own record of it: not empty, within
-- its size, of its types (the storage measures no upload sent without
-- a length). job_applications_cv_folder_check keeps it in its own posting's folder.
create or replace function private.job_applications_cv_object()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  size bigint;
  mimetype text;
begin
  if new.cv_key is null then
    return new;
  end if;
  select (o.metadata ->> 'size')::bigint, o.metadata ->> 'mimetype' into size, mimetype
    from storage.objects o where o.bucket_id = 'applications' and o.name = new.cv_key;
  if not found then
    raise exception using errcode = '23503', message = 'The CV is not in storage: upload it first.';
  end if;
  if coalesce(size, 0) not between 1 and 10485760 or mimetype is null
     or not (mimetype = any (array['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'])) then
    raise exception using errcode = '23514', message = 'The CV stored is empty, too large or not a PDF or Word document.';
  end if;
  return new;
end
$$;
revoke all on function private.job_applications_cv_object() from public, anon, authenticated;
drop trigger if exists job_applications_cv_object on public.job_applications;
create trigger job_applications_cv_object
  before insert on public.job_applications
  for each row execute function private.job_applications_cv_object();

-- Applications go to postings that are open: public.job_openings has each
-- posting of the site, until when it takes applications, and, for a remote
-- one, the countries its applicants may live in. The deploy writes it with
-- the service key (deploy/sync-openings.mjs, from `site applications
-- --openings`); the public can neither read nor write it.
create table if not exists public.job_openings (
  job_id text primary key,
  title text not null,
  closes_at timestamptz not null,
  applicants_from text[] not null default '{}'
);
comment on column public.job_openings.job_id is 'the posting: its file name in content/pages/careers/';
comment on column public.job_openings.closes_at is 'the first moment it takes no applications: midnight after its valid_through';
comment on column public.job_openings.applicants_from is 'for a remote posting, the countries applicants may live in; else empty';
alter table public.job_openings enable row level security;
revoke all on table public.job_openings from anon, authenticated;
grant select, insert, update, delete on table public.job_openings to service_role;

create or replace function private.job_applications_job_open()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  opening public.job_openings;
begin
  if new.job_id is null then
    return new;
  end if;
  select * into opening from public.job_openings o where o.job_id = new.job_id;
  if not found then
    raise exception using errcode = 'PT404', message = 'There is no posting with this id.';
  end if;
  if opening.closes_at <= now() then
    raise exception using errcode = 'PT410', message = 'This posting is closed: applications are no longer accepted.';
  end if;
  if cardinality(opening.applicants_from) > 0 and new.country is not null
     and not (new.country = any (opening.applicants_from)) then
    raise exception using errcode = '23514', message =
      'This posting takes applicants living in ' || array_to_string(opening.applicants_from, ', ') || ' only.';
  end if;
  return new;
end
$$;
revoke all on function private.job_applications_job_open() from public, anon, authenticated;
drop trigger if exists job_applications_job_open on public.job_applications;
create trigger job_applications_job_open
  before insert on public.job_applications
  for each row execute function private.job_applications_job_open();

-- Retention: every night, applications older than 6 months are deleted
-- (careers.retention_months in content/site.yaml; the applicants' privacy notice says so),
-- and the rate limit's counts older than a day. cron.schedule replaces the job
-- of the same name. CVs go by
-- deploy/delete-old-attachments.mjs: Supabase lets no SQL delete a file.
create extension if not exists pg_cron with schema pg_catalog;
select cron.schedule(
  'job-applications-retention',
  '17 3 * * *',
  $$delete from public.job_applications where received_at < now() - interval '6 months';
    delete from private.job_application_rate where at < now() - interval '1 day'$$
);
