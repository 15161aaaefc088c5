-- What a notification says, as its recipient reads it (in their language, written when it
-- was made): the inbox shows it as the push did. Older rows have none.
ALTER TABLE notifications ADD COLUMN title TEXT;
ALTER TABLE notifications ADD COLUMN body TEXT;
