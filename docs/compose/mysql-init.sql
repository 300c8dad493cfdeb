-- Run once by the mysql:8.4 image on its first start (an empty volume), after it has created
-- the user MYSQL_USER (`ticketing`, see docker-compose.yml) with MYSQL_PASSWORD.
-- One schema per service; the services' migrations create the tables.
CREATE DATABASE IF NOT EXISTS ticketing_auth CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS ticketing_tickets CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
GRANT ALL PRIVILEGES ON ticketing_auth.* TO 'ticketing'@'%';
GRANT ALL PRIVILEGES ON ticketing_tickets.* TO 'ticketing'@'%';
