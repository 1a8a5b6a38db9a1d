//! Root package of the workspace: it exists to own tests/ and benches/.
