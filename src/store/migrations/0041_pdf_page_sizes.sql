-- The page sizes of a stored PDF, as the signer page and the public document page show them
-- ([{width, height, rotation}] in points, one per page), read once in the PDF jail and kept here so a
-- later open does not parse the whole file again (a 300-page contract costs seconds per read). Keyed
-- by the blob's SHA-256: blobs are content-addressed, so the same bytes always have the same pages.
create table pdf_page_sizes (
  sha256 text primary key,
  pages jsonb not null,
  created_at timestamptz not null default now()
);
