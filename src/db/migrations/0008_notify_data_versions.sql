-- The embedded database follows data versions by notification instead of reading them (ADR 0014):
-- a raised counter also notifies `cradle_data_versions` with "{domain}:{company id}", but only in a
-- session that asks for it (`cradle.notify_data_versions` = 'on', set by the embedded database on
-- open). PostgreSQL sessions do not ask: NOTIFY takes a lock that serialises the commits of every
-- transaction that notified, and instances there read the versions instead.
CREATE OR REPLACE FUNCTION "cradle_data_version_raise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "company_data_pending" WHERE "xact" = NEW."xact" AND "company_id" = NEW."company_id" AND "domain" = NEW."domain";
  INSERT INTO "company_data_versions" ("company_id", "domain", "version")
    SELECT NEW."company_id", NEW."domain", 1 WHERE EXISTS (SELECT 1 FROM "companies" WHERE "id" = NEW."company_id")
    ON CONFLICT ("company_id", "domain") DO UPDATE SET "version" = "company_data_versions"."version" + 1;
  IF current_setting('cradle.notify_data_versions', true) = 'on' THEN
    PERFORM pg_notify('cradle_data_versions', NEW."domain" || ':' || NEW."company_id");
  END IF;
  RETURN NULL;
END
$$;
