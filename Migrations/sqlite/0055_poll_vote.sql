-- PostgreSQL's vote in one round trip (a function: see its 0055). SQLite's single
-- writer runs ChatStore.castVote's statements in the server, one after another, with
-- no round trips between them: nothing to add here.
SELECT 1;
