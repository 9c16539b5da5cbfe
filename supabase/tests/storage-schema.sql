-- The parts of Supabase's storage schema that our migration and its policy touch,
-- for tests only (a Supabase project has the real one). Written from the
-- supabase/storage repository's tenant migrations:
--   0002-storage-schema        roles, schema, buckets, objects, RLS, foldername()
--   0002-pathtoken-column      objects.path_tokens
--   0007-add-public-to-buckets buckets.public
--   0012/0014 bucket limits    buckets.file_size_limit (bytes), allowed_mime_types
-- The API roles get every table privilege, as Supabase grants them; row-level
-- security alone decides what they may do. The roles are supabase-roles.sql's.

create schema storage;
grant usage on schema storage to anon, authenticated, service_role;

create table storage.buckets (
  id text not null primary key,
  name text not null,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  public boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[]
);
create unique index bname on storage.buckets using btree (name);

create table storage.objects (
  id uuid not null default gen_random_uuid() primary key,
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored
);
create unique index bucketid_objname on storage.objects using btree (bucket_id, name);

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;

create function storage.foldername(name text) returns text[]
language plpgsql as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;
grant execute on function storage.foldername(text) to anon, authenticated, service_role;
