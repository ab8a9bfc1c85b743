"""DjonyResource's writes: ModelResource's own code on Django instances, each step atomic.

* :mod:`~tastypie_djony.write.outcome`: a write request's transaction, settled by its answer;
* :mod:`~tastypie_djony.write.flow`: the write steps (``DjangoWritesMixin``);
* whether the running code writes: :mod:`tastypie_djony.mode` (below the fields, which ask it);
* :mod:`~tastypie_djony.write.errors`: which errors are the client's (a 400);
* :mod:`~tastypie_djony.write.refusals`: how a refusal is told, naming nothing internal.
"""
