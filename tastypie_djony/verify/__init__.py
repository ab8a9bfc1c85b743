"""``manage.py djony_verify``: the same requests against each resource and its twin.

Before switching a Tastypie project from ``ModelResource`` to ``DjonyResource``
(or to see what switching would give), the command finds every resource in the
URLconf, builds its twin on the other base class, sends both the same requests
through the project's own URLconf and middleware, and compares the answers.

One module per step:

* :mod:`.discovery`: the resources the URLconf serves;
* :mod:`.twins`: a resource class rebuilt on the other base class;
* :mod:`.urlconf`: a copy of the URLconf with the twins mounted instead;
* :mod:`.generation`: the requests, from each resource's definition and its rows;
* :mod:`.running`: sending a request to both sides (in a rolled-back transaction)
  and comparing, with :mod:`.differences`;
* :mod:`.report`: the tables, the first differences, the JSON file;
* :mod:`.progress`: the progress bar.
"""
