-- The warehouse tables of the SummaryDeltaToWarehouse pipeline (docs/recipes/data-factory.json and
-- its Fabric item, docs/recipes/fabric/; docs/consuming.md "A delta into a warehouse table"): each
-- dataset's table, its staging table (the delta's rows as the Copy activity lands them, `removed`
-- and the page's `deltaToken` beside them), and the token each table is kept at. Azure SQL
-- Database: give the database a UTF-8 collation (Latin1_General_100_CI_AS_SC_UTF8), or make the
-- text columns NVARCHAR. A Fabric Warehouse takes it as it is (its text is UTF-8), VARCHAR(MAX)
-- being a preview type there: where it is refused, use VARCHAR(8000) for `lines`.
-- Every column may be null: a caller without Data.Read.Financials has no amounts, and a removal row
-- holds its id alone.
CREATE TABLE dbo.contracts (
  contractId VARCHAR(100) NOT NULL, contractWorkspaceID VARCHAR(100), title VARCHAR(1000), status VARCHAR(20),
  supplierId VARCHAR(100), supplierName VARCHAR(1000), ownerEmail VARCHAR(320), currency VARCHAR(3),
  contractAmount DECIMAL(18, 2), effectiveDate DATE, expirationDate DATE, createdDate DATETIME2(3), updatedDate DATETIME2(3)
);
CREATE TABLE dbo.contracts_delta (
  contractId VARCHAR(100) NOT NULL, contractWorkspaceID VARCHAR(100), title VARCHAR(1000), status VARCHAR(20),
  supplierId VARCHAR(100), supplierName VARCHAR(1000), ownerEmail VARCHAR(320), currency VARCHAR(3),
  contractAmount DECIMAL(18, 2), effectiveDate DATE, expirationDate DATE, createdDate DATETIME2(3), updatedDate DATETIME2(3),
  removed VARCHAR(20), deltaToken VARCHAR(100)
);
-- An invoice's lines are kept with it as their JSON array (OPENJSON reads them).
CREATE TABLE dbo.invoices (
  invoiceId VARCHAR(100) NOT NULL, invoiceNumber VARCHAR(100), contractId VARCHAR(100), contractWorkspaceID VARCHAR(100),
  purchaseOrderId VARCHAR(100), supplierId VARCHAR(100), supplierName VARCHAR(1000), status VARCHAR(20),
  invoiceDate DATE, dueDate DATE, currency VARCHAR(3), netAmount DECIMAL(18, 2), taxAmount DECIMAL(18, 2), totalAmount DECIMAL(18, 2),
  createdDate DATETIME2(3), updatedDate DATETIME2(3), lines VARCHAR(MAX)
);
CREATE TABLE dbo.invoices_delta (
  invoiceId VARCHAR(100) NOT NULL, invoiceNumber VARCHAR(100), contractId VARCHAR(100), contractWorkspaceID VARCHAR(100),
  purchaseOrderId VARCHAR(100), supplierId VARCHAR(100), supplierName VARCHAR(1000), status VARCHAR(20),
  invoiceDate DATE, dueDate DATE, currency VARCHAR(3), netAmount DECIMAL(18, 2), taxAmount DECIMAL(18, 2), totalAmount DECIMAL(18, 2),
  createdDate DATETIME2(3), updatedDate DATETIME2(3), lines VARCHAR(MAX),
  removed VARCHAR(20), deltaToken VARCHAR(100)
);
CREATE TABLE dbo.summary_delta_state (dataset VARCHAR(20) NOT NULL, deltaToken VARCHAR(100) NOT NULL);
