-- The roles and default privileges of a Supabase project, for tests only: what a
-- new project's database starts with, so a migration is tested against what it
-- meets there and not against a kinder database. From supabase/postgres,
-- migrations/db/init-scripts/00000000000000-initial-schema.sql (its statements
-- for the API roles, unchanged; the statements for the realtime publication,
-- replication and extension users are left out):
--   - anon, authenticated and service_role (which bypasses row-level security);
--   - in schema public, every new table, function and sequence is granted ALL to
--     them, by default privileges of the role that creates it. Migrations run as
--     `postgres` (the tests' superuser too), and as supabase_admin.
-- So a table the migration creates is open to anon until the migration revokes.

create role anon                nologin noinherit;
create role authenticated       nologin noinherit; -- "logged in" user: web_user, app_user, etc
create role service_role        nologin noinherit bypassrls; -- allow developers to create JWT's that bypass their policies
create role supabase_admin      superuser createdb createrole replication bypassrls;

create user authenticator noinherit;
grant anon              to authenticator;
grant authenticated     to authenticator;
grant service_role      to authenticator;
grant supabase_admin    to authenticator;

grant usage                     on schema public to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to postgres, anon, authenticated, service_role;

alter default privileges for user supabase_admin in schema public grant all
    on sequences to postgres, anon, authenticated, service_role;
alter default privileges for user supabase_admin in schema public grant all
    on tables to postgres, anon, authenticated, service_role;
alter default privileges for user supabase_admin in schema public grant all
    on functions to postgres, anon, authenticated, service_role;

alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
