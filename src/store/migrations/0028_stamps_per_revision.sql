-- A document's rendition may be stamped more than once: an endorsement adds a revision to the
-- completed original (and so makes a new universal rendition), and the new bytes get a stamp of
-- their own. One stamp per document, rendition and exact bytes stamped.
drop index stamps_document_subject;
create unique index stamps_document_subject_covered on stamps(document_id, subject, covered_sha256) where document_id is not null;
