"""Small estate documents that many CLI tests build their repos from: one
Organization (site London, admin group AG1 whose site folder server is EX10-A),
and templates for a Server and a public folder store."""

ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: contoso}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG1, siteFolderServer: EX10-A}]
  sites: [{name: London}]
"""
SERVER = """apiVersion: exlint/v1
kind: Server
metadata: {{name: {name}}}
spec: {{version: "2010", site: London, adminGroup: AG1, roles: [Mailbox], dag: D1}}
"""
STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: {name}
spec:
  server: {server}
  hierarchy: Public Folders
  created: 2010-01-01
  emailAddress: {name}@contoso.com
"""
