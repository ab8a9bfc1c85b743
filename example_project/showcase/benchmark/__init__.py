"""What ``manage.py compare`` is made of: the endpoints, the identical-bodies
check, the WSGI server it starts, the load clients and the report."""
