-- Production storage for the contact form: the bucket, its limits and who may
-- upload. Rendered from generator/src/storage/policy.rs, which `site serve`'s
-- storage enforces too; change the policy there and run
--     UPDATE_MIGRATION=1 cargo test migration
-- to write this file again. It can be applied any number of times.

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('contact-attachments', 'contact-attachments', true, 5242880, array['image/jpeg', 'image/png', 'image/gif'])
on conflict (id) do update set
  public = excluded.public,
  file_size_limit = excluded.file_size_limit,
  allowed_mime_types = excluded.allowed_mime_types;

-- The public may upload new objects, only into this bucket, only under
-- public/, and only with keys of the form the site makes:
--     public/<13-digit millisecond timestamp>_<safe file name>
-- There is no UPDATE, DELETE or SELECT policy for anon: it cannot overwrite
-- (an upsert needs UPDATE), remove or list anyone's uploads. Public reads
-- go through the bucket's public URL, which needs no policy.
drop policy if exists "contact-attachments: public uploads" on storage.objects;
create policy "contact-attachments: public uploads"
  on storage.objects
  for insert
  to anon
  with check (
    bucket_id = 'contact-attachments'
    and (storage.foldername(name))[1] = 'public'
    and name ~ '^public/[0-9]{13}_[A-Za-z0-9._-]{1,91}$'
  );
