-- An attempt is reserved before its password is hashed, and settled once the
-- hash was checked: a reservation may still be withdrawn (the password was right,
-- the attempt was refused, nothing was checked), a settled attempt only ages out.
-- Rows written before this column were all settled.
ALTER TABLE login_failures ADD COLUMN settled boolean NOT NULL DEFAULT true;
