

ORDER = 30  #: position among the families (``figbench baseline``, quickstart, the tables)
