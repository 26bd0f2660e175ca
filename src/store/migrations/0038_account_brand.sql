-- The sender's brand and the embedding mode of an account (docs/api.md, "Brand and embedding"):
-- the origins allowed to frame its signer pages (exact scheme://host[:port], none by default: every
-- page stays unframeable), the name beside its logo, the primary colour of the signer page's header
-- and buttons (#rrggbb, checked against white when set), the From name and Reply-To of its emails,
-- and whether Sello's own name is left out of its signer pages, emails and verify pages.
alter table accounts
  add column frame_origins text[] not null default '{}',
  add column brand_name text,
  add column brand_colour text check (brand_colour ~ '^#[0-9a-f]{6}$'),
  add column email_sender_name text,
  add column email_reply_to text,
  add column hide_sello boolean not null default false;
