from judgebench.cli import app

app()
