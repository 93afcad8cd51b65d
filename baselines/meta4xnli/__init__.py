

ORDER = 20  #: position among the families (``figbench baseline``, quickstart, the tables)
