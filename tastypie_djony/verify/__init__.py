"""``manage.py djony_verify``: the same requests against each resource and its twin.

Before switching a Tastypie project from ``ModelResource`` to ``DjonyResource``
(or to see what switching would give), the command finds every resource in the
URLconf, builds its twin on the other base class, sends both the same requests
through the project's own URLconf and middleware, and compares the answers.

One module per step:

* :mod:`.discovery`: the resources the URLconf serves;
* :mod:`.targets`: each of them on its way to be compared (its list URI, its twin
  mounted, its two sides), or why it cannot be; with :mod:`.namespaces`, the list URI
  of a resource whose own ``reverse()`` misses the namespace it is mounted under;
* :mod:`.twins`: a resource class rebuilt on the other base class;
* :mod:`.urlconf`: a copy of the URLconf with the twins mounted instead;
* :mod:`.generation`: the requests, from each resource's definition and its rows
  (with :mod:`.copies`, the rows updates and deletes are sent to);
* :mod:`.credentials`: what ``--user`` sends for each resource's authentication;
* :mod:`.budget`: the order the requests are sent in, and what ``--max-requests`` and
  ``--seconds`` cut off;
* :mod:`.running`: sending a request to both sides (in a rolled-back transaction)
  and comparing, with :mod:`.differences` and, for writes, :mod:`.effects` (the rows
  of every table written, the signals fired);
* :mod:`.refusals`: answers that are a 405 on both sides, and resources no GET reads;
* :mod:`.verdict`: whether the run proved anything, and the one-line reason if not;
* :mod:`.trouble`: what could not be compared and why (an exception in one line, naming
  the field the command was working on);
* :mod:`.report`: the tables, the first differences, the JSON file;
* :mod:`.progress`: the progress bar.
"""
