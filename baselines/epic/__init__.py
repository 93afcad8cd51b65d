

ORDER = 40  #: position among the families (``figbench baseline``, quickstart, the tables)
