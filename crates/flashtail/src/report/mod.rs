//! Report writing: tables, CSV, JSON and the HTML page (placeholder; owned by the report work).
