"""Fetch data sets and models, once, on a machine with internet (a login node).

Compute jobs run offline (see :func:`xlcons.fetch.model.hf_offline_env`), so everything they
read must be on disk before they start. The fetch rules call the two entry points here:

* :func:`xlcons.fetch.dataset.fetch_dataset` makes a directory hold every released file of a
  :class:`~xlcons.data_sources.spec.DataSource`, verified against the recorded size and
  sha256, and writes ``MANIFEST.json`` as the rule's output.
* :func:`xlcons.fetch.model.fetch_model` downloads a Hugging Face model (or one file of it) and
  writes ``.xlcons-fetched.json`` as the rule's output.

Both accept copies that are already there ("pre-seeded"), so clusters without internet
anywhere can be fed by hand. Every output is written atomically (temporary file, then
``os.replace``): a killed job never leaves a file that looks complete.

The package holds:

- :mod:`xlcons.fetch.dataset`: a released data set into a folder, with its manifest, and the
  check that a fetched folder still holds it (``fetch_dataset``, ``verify_dataset``);
- :mod:`xlcons.fetch.model`: a Hugging Face model, or one pinned file at a URL, with its marker
  (``fetch_model``, ``fetch_url_file``, ``hf_offline_env``);
- :mod:`xlcons.fetch.structure`: the structural checks of a released file (columns, JSON type,
  archive members);
- :mod:`xlcons.fetch.download`: an HTTP download with retries, hashed on the way;
- :mod:`xlcons.fetch.disk`: atomic JSON, sha256, timestamps and ``.part`` paths;
- :mod:`xlcons.fetch.errors`: ``FetchError`` and ``DataVerificationError``.
"""
