# cython: language_level=3
"""The declarations of interner.pyx: the id table a reader keeps, which trec_scan.pyx's
scan interns into (its ``table`` is read in place: no call across modules per id)."""

from .hashtable cimport Table


cdef class Interner:
    cdef Table table

    cdef int check_usable(self) except -1
