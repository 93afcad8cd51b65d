"""Harvest new corpora from a MediaWiki XML dump on Dask (issue 25).

``figbench harvest wec`` builds a WEC-style event-coreference corpus (Eirew et al., 2021, §3) and
``figbench harvest wimcor`` a WiMCor-style location-metonymy corpus (Mathews & Strube, 2020, §3.2)
from ``pages-articles`` / ``pages-articles-multistream`` bz2 dumps, read as streams.

Modules: :mod:`.dump` (partitions and page streams), :mod:`.wikitext` (mwparserfromhell: paragraphs,
links, infoboxes), :mod:`.driver` (Dask stages, atomic per-partition outputs, manifest and resume),
:mod:`.wec`, :mod:`.wimcor` (the two methods; :mod:`.classes`: WiMCor's article classes), :mod:`.card` (the
generated README) and :mod:`.cli`.
"""
