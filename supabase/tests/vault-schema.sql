-- Supabase Vault, for tests only: the table, the view and the function that the
-- messages' migration and docs/deploy.md use, with the same names, columns and
-- privileges as supabase/vault's sql/supabase_vault--0.3.0.sql. A Supabase
-- project has the real extension, which encrypts `secret` on disk; here it is
-- stored as given and `decrypted_secret` is that text.

create schema vault;

create table vault.secrets (
  id uuid     primary key default gen_random_uuid(),
  name        text,
  description text not null default '',
  secret      text not null,
  key_id      uuid,
  nonce       bytea,
  created_at  timestamptz not null default current_timestamp,
  updated_at  timestamptz not null default current_timestamp
);
create unique index on vault.secrets using btree (name) where name is not null;

create view vault.decrypted_secrets as
select s.id, s.name, s.description, s.secret, s.secret as decrypted_secret,
       s.key_id, s.nonce, s.created_at, s.updated_at
from vault.secrets s;

create function vault.create_secret(
  new_secret text,
  new_name text = null,
  new_description text = '',
  new_key_id uuid = null
)
returns uuid
security definer
language plpgsql
set search_path = ''
as $$
declare
  rec record;
begin
  insert into vault.secrets (secret, name, description)
  values (new_secret, new_name, new_description)
  returning * into rec;
  return rec.id;
end
$$;

revoke all on function vault.create_secret from public;
revoke all on schema vault from public;
