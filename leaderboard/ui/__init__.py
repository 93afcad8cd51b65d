"""What is shown: the Gradio app and its tabs, the board's tables, plots, formatting, the detail and About texts,
downloads and the page's assets. Imports every lower layer, never the commands."""
